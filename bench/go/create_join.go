// SPDX-License-Identifier: MIT
// bench/go/create_join.go — bench/create_join.c as Go: start a goroutine
// and wait for its result, N times in a row (default 20,000); the sum of
// the results is checked.
//
//	create_join [N]
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	n := argLong(1, 20000)
	smp := startSampler(2 * time.Millisecond)
	var sum, want int64
	res := make(chan int64)
	t0 := nowSec()
	for i := int64(0); i < n; i++ {
		go func(a int64) { res <- a*3 + 1 }(i)
		sum += <-res
		want += i*3 + 1
	}
	secs := nowSec() - t0
	peak := smp.finish()
	if sum != want {
		fmt.Fprintf(os.Stderr, "create_join: results sum to %d, want %d\n", sum, want)
		os.Exit(1)
	}
	fmt.Printf("RESULT name=create_join n=%d seconds=%.6f us_per_op=%.3f peak_os_threads=%d rss_kib=%d\n",
		n, secs, secs/float64(n)*1e6, peak, statusField("VmHWM"))
}
