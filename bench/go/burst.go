// SPDX-License-Identifier: MIT
// bench/go/burst.go — bench/burst.c as Go: start T goroutines (default
// 10,000) that each compute ITERS rounds of FNV-1a (default 800), then wait
// for them all; R times (default 5). The results are checked.
//
//	burst [T [R [ITERS]]]
package main

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"time"
)

func main() {
	n := argLong(1, 10000)
	reps := argLong(2, 5)
	iters := int(argLong(3, 800))
	if reps < 2 {
		fmt.Fprintln(os.Stderr, "burst: needs R >= 2 (one cold burst, then warm ones)")
		os.Exit(2)
	}
	var want uint64
	w0 := nowSec()
	for i := int64(0); i < n; i++ {
		want += compute(uint64(i), iters)
	}
	workUs := (nowSec() - w0) / float64(n) * 1e6
	res := make([]uint64, n)
	smp := startSampler(time.Millisecond)
	var cold float64
	warm := make([]float64, 0, reps-1)
	for r := int64(0); r < reps; r++ {
		t0 := nowSec()
		var wg sync.WaitGroup
		wg.Add(int(n))
		for i := int64(0); i < n; i++ {
			go func(i int64) {
				res[i] = compute(uint64(i), iters)
				wg.Done()
			}(i)
		}
		wg.Wait()
		secs := nowSec() - t0
		var sum uint64
		for _, v := range res {
			sum += v
		}
		if sum != want {
			fmt.Fprintf(os.Stderr, "burst %d: results sum to %x, want %x\n", r, sum, want)
			os.Exit(1)
		}
		if r == 0 {
			cold = secs
		} else {
			warm = append(warm, secs)
		}
	}
	peak := smp.finish()
	sort.Float64s(warm)
	m := len(warm)
	med := warm[m/2]
	if m%2 == 0 {
		med = (warm[m/2-1] + warm[m/2]) / 2
	}
	fmt.Printf("RESULT name=burst n=%d reps=%d cold_seconds=%.6f warm_seconds=%.6f "+
		"cold_us_per_thread=%.3f warm_us_per_thread=%.3f work_us=%.3f peak_os_threads=%d rss_kib=%d\n",
		n, reps, cold, med, cold/float64(n)*1e6, med/float64(n)*1e6, workUs, peak, statusField("VmHWM"))
}
