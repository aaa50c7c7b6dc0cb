// SPDX-License-Identifier: MIT
// bench/go/echo_server.go — bench/echo_server.c as Go: a TCP echo server
// on 127.0.0.1 (an ephemeral port), one goroutine per connection reading
// what arrives and writing it back. It prints "port <n> pid <pid>" once it
// listens and ends itself after LIFETIME seconds (default 60).
//
//	echo_server [LIFETIME]
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		r, err := c.Read(buf)
		if r > 0 {
			if _, werr := c.Write(buf[:r]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func main() {
	life := argLong(1, 60)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "echo_server: cannot listen on 127.0.0.1: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("port %d pid %d\n", l.Addr().(*net.TCPAddr).Port, os.Getpid())
	time.AfterFunc(time.Duration(life)*time.Second, func() { os.Exit(0) })
	for {
		c, err := l.Accept()
		if err != nil {
			continue
		}
		go serve(c)
	}
}
