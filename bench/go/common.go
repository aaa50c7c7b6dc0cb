// SPDX-License-Identifier: MIT
// bench/go/common.go — what the Go workloads share: the arguments, the
// clock, the computation and the figures every bench program reports
// (peak OS threads and peak RSS, from /proc/self/status).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var start = time.Now()

// nowSec: seconds on a monotonic clock.
func nowSec() float64 { return time.Since(start).Seconds() }

// argLong: argument i as an integer, def when absent; a bad one ends the
// program with status 2, as the C programs do.
func argLong(i int, def int64) int64 {
	if len(os.Args) <= i {
		return def
	}
	v, err := strconv.ParseInt(os.Args[i], 10, 64)
	if err != nil || v < 0 {
		fmt.Fprintf(os.Stderr, "%s: bad argument %q\n", os.Args[0], os.Args[i])
		os.Exit(2)
	}
	return v
}

// compute: FNV-1a over iters derived bytes, as bench.h's compute().
func compute(seed uint64, iters int) uint64 {
	h := uint64(1469598103934665603) ^ seed
	for i := 0; i < iters; i++ {
		h ^= uint64(byte(seed>>(uint(i)%56))) + uint64(uint32(i))
		h *= 1099511628211
	}
	return h
}

// statusField: a number from /proc/self/status ("Threads", "VmHWM"), or -1.
func statusField(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, key+":") {
			fs := strings.Fields(line[len(key)+1:])
			if len(fs) > 0 {
				v, _ := strconv.ParseInt(fs[0], 10, 64)
				return v
			}
		}
	}
	return -1
}

// sampler: the peak of Threads: every period, as bench.h's sampler.
type sampler struct {
	stop int32
	peak int64
	done chan struct{}
}

func startSampler(period time.Duration) *sampler {
	s := &sampler{peak: statusField("Threads"), done: make(chan struct{})}
	go func() {
		for atomic.LoadInt32(&s.stop) == 0 {
			if n := statusField("Threads"); n > atomic.LoadInt64(&s.peak) {
				atomic.StoreInt64(&s.peak, n)
			}
			time.Sleep(period)
		}
		close(s.done)
	}()
	return s
}

func (s *sampler) finish() int64 {
	atomic.StoreInt32(&s.stop, 1)
	<-s.done
	if n := statusField("Threads"); n > s.peak {
		return n
	}
	return s.peak
}
