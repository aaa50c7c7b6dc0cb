# SPDX-License-Identifier: MIT
# tests/progs/native_ids.py — CPython's threading.get_native_id() in 200
# threads: each thread's id is its own, constant while it lives (its
# thread yields between two reads), and main's is the process id. An
# ordinary Python program; prints "PASS native_ids" or fails.
import os
import sys
import threading
import time

N = 200
ids = {}
lock = threading.Lock()
barrier = threading.Barrier(N + 1)


def reader(i):
    first = threading.get_native_id()
    for _ in range(20):
        time.sleep(0)
    if threading.get_native_id() != first:
        print(f"FAIL: thread {i}: native id {first} changed", flush=True)
        os._exit(1)
    with lock:
        ids[i] = first
    barrier.wait()      # every reader alive while the others read


threads = [threading.Thread(target=reader, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
barrier.wait()
for t in threads:
    t.join()
distinct = len(set(ids.values()))
main_id = threading.get_native_id()
print(f"{N} threads: {distinct} distinct native ids")
print(f"main's native id is the process id: {main_id == os.getpid()}")
print(f"no other thread has it: {os.getpid() not in ids.values()}")
if distinct != N or main_id != os.getpid() or os.getpid() in ids.values():
    print("FAIL: native ids")
    sys.exit(1)
print("PASS native_ids")
