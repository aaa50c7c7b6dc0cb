// SPDX-License-Identifier: MIT
// bench/go/maxthreads.go — bench/concurrent.c built as maxthreads, in Go:
// N goroutines (default 1,000,000) that each sleep in a loop, re-checking a
// shared flag every PERIOD ms (default 5,000), all alive at once until the
// main goroutine has seen every one start and has measured OS threads and
// memory (VmRSS, VmHWM and VmPTE against the baseline before the first
// one); then it sets the flag and waits for them all.
//
//	maxthreads [N [PERIOD_MS]]
package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	n := argLong(1, 1000000)
	periodMs := argLong(2, 5000)
	period := time.Duration(periodMs) * time.Millisecond
	var release int32
	var started int64
	var wg sync.WaitGroup
	rss0 := statusField("VmRSS")
	pte0 := statusField("VmPTE")

	t0 := nowSec()
	wg.Add(int(n))
	for i := int64(0); i < n; i++ {
		go func() {
			atomic.AddInt64(&started, 1)
			for atomic.LoadInt32(&release) == 0 {
				time.Sleep(period)
			}
			wg.Done()
		}()
	}
	tCreated := nowSec()
	deadline := tCreated + 60 + float64(n)/10000
	for atomic.LoadInt64(&started) < n && nowSec() < deadline {
		time.Sleep(time.Millisecond)
	}
	tAlive := nowSec()
	alive := atomic.LoadInt64(&started)
	osThreads := statusField("Threads")
	rss := statusField("VmRSS")
	pte := statusField("VmPTE")

	atomic.StoreInt32(&release, 1)
	wg.Wait()
	tEnd := nowSec()
	hwm := statusField("VmHWM")
	per := 1.0 / float64(n)
	fmt.Printf("RESULT name=maxthreads n=%d reached=%d create_error=none alive=%d joined=%d "+
		"seconds=%.3f create_seconds=%.3f join_seconds=%.3f os_threads=%d "+
		"peak_os_threads=%d rss_delta_kib=%d kib_per_thread=%.2f hwm_kib_per_thread=%.2f "+
		"pte_kib_per_thread=%.2f rss_kib=%d\n",
		n, n, alive, n, tEnd-t0, tCreated-t0, tEnd-tAlive, osThreads, osThreads, rss-rss0,
		float64(rss-rss0)*per, float64(hwm-rss0)*per, float64(pte-pte0)*per, hwm)
	if alive != n {
		os.Exit(1)
	}
}
