// SPDX-License-Identifier: MIT
// bench/go/cond_pingpong.go — bench/cond_pingpong.c as Go: a token bounced
// between two goroutines through a sync.Mutex and two sync.Conds, N round
// trips (default 100,000); each side checks the token it receives.
//
//	cond_pingpong [N]
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

var (
	mu         sync.Mutex
	wake       [2]*sync.Cond
	turn       int
	token      int64
	outOfStep  int64
	n          int64
	tEnd       float64
	gateOpen   = make(chan struct{})
	arrived    sync.WaitGroup
	finished   sync.WaitGroup
)

func receive(me int, want int64) {
	for turn != me {
		wake[me].Wait()
	}
	if token != want {
		outOfStep++
	}
}

func side(me int) {
	arrived.Done()
	<-gateOpen
	for k := int64(0); k < n; k++ {
		mu.Lock()
		receive(me, 2*k+int64(me))
		token++
		turn = 1 - me
		wake[1-me].Signal()
		mu.Unlock()
	}
	if me == 0 {
		mu.Lock()
		receive(0, 2*n)
		tEnd = nowSec()
		mu.Unlock()
	}
	finished.Done()
}

func main() {
	n = argLong(1, 100000)
	wake[0] = sync.NewCond(&mu)
	wake[1] = sync.NewCond(&mu)
	smp := startSampler(5 * time.Millisecond)
	arrived.Add(2)
	finished.Add(2)
	go side(0)
	go side(1)
	arrived.Wait()
	t0 := nowSec()
	close(gateOpen)
	finished.Wait()
	secs := tEnd - t0
	peak := smp.finish()
	if token != 2*n || outOfStep != 0 {
		fmt.Fprintf(os.Stderr, "cond_pingpong: %d handovers, want %d; %d out of step\n", token, 2*n, outOfStep)
		os.Exit(1)
	}
	fmt.Printf("RESULT name=cond_pingpong n=%d seconds=%.6f round_trips_per_sec=%.0f "+
		"us_per_round_trip=%.3f peak_os_threads=%d rss_kib=%d\n",
		n, secs, float64(n)/secs, secs/float64(n)*1e6, peak, statusField("VmHWM"))
}
