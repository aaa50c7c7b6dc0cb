#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""py_threads.py - CPython's threading stack on 1,000 threads.

Exercises, each section with its own threading.Thread objects (1,000 in all,
the thread pool's workers not counted):
  Lock (shared counter, timed acquire that times out), RLock (nested
  acquires), Condition (notify_all to waiting threads, a two-thread
  ping-pong, a bounded buffer, wait with a timeout), Semaphore and
  BoundedSemaphore (at most N inside, over-release), Event (many waiters,
  wait with a timeout), Barrier (rounds, one index each, abort), queue.Queue
  (producers and consumers, join/task_done, get with a timeout),
  threading.local (per-thread isolation), concurrent.futures
  .ThreadPoolExecutor (32 workers: map and submit + as_completed over
  10,000 tasks, an exception carried through a future), threads blocking in
  time.sleep, in socketpair and TCP socket I/O (blocking and with timeouts)
  and in os.pipe reads and select, and short-lived threads started and
  joined in waves.

Prints one line of counts and checks per section, the same on every run,
a "figure:" line with the wall time (the one line that varies), then
"DONE". Exits 1 with a message on stderr when a check fails, 2 when a
thread does not finish within its bound.
"""
import concurrent.futures
import os
import queue
import select
import socket
import sys
import threading
import time
import zlib

TOTAL_THREADS = 1000
JOIN_TIMEOUT = 60.0
started = 0
errors = []


def fail(msg):
    sys.stderr.write("py_threads: FAILED: %s\n" % msg)
    sys.stderr.flush()
    os._exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def thread_excepthook(args):
    errors.append("%s in %s: %s" % (args.exc_type.__name__,
                                    args.thread.name if args.thread else "?",
                                    args.exc_value))


threading.excepthook = thread_excepthook


def spawn(target, *args, name=None):
    global started
    t = threading.Thread(target=target, args=args, name=name)
    t.start()
    started += 1
    return t


def join_all(threads, what):
    deadline = time.monotonic() + JOIN_TIMEOUT
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            sys.stderr.write("py_threads: %s: thread %s still running after "
                             "%.0f s\n" % (what, t.name, JOIN_TIMEOUT))
            os._exit(2)
    if errors:
        fail("%s: %s" % (what, errors[0]))


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# ---- Lock -------------------------------------------------------------------

def sec_lock():
    n, iters = 150, 400
    lock = threading.Lock()
    box = [0]

    def work():
        for _ in range(iters):
            with lock:
                v = box[0]
                box[0] = v + 1

    join_all([spawn(work) for _ in range(n)], "lock")
    check(box[0] == n * iters, "lock counter %d != %d" % (box[0], n * iters))

    # A timed acquire of a lock another thread holds must time out.
    held, release = threading.Event(), threading.Event()
    res = {}

    def holder():
        with lock:
            held.set()
            release.wait()

    def taker():
        held.wait()
        t0 = time.monotonic()
        res["got"] = lock.acquire(timeout=0.05)
        res["waited"] = time.monotonic() - t0
        res["nb"] = lock.acquire(blocking=False)
        release.set()
        res["later"] = lock.acquire(timeout=10)
        lock.release()

    join_all([spawn(holder), spawn(taker)], "lock timeout")
    check(res["got"] is False and res["nb"] is False and res["later"],
          "lock timeout results %r" % res)
    check(res["waited"] >= 0.049, "timed acquire returned after %.4f s"
          % res["waited"])
    out("lock: threads %d, counter %d, timed acquire timed out True, "
        "acquired after release True" % (n, box[0]))


# ---- RLock ------------------------------------------------------------------

def sec_rlock():
    n, iters = 50, 200
    rl = threading.RLock()
    totals = {}

    def inner(k):
        with rl:
            with rl:
                totals[k] = totals.get(k, 0) + 1

    def work(k):
        for _ in range(iters):
            with rl:
                inner(k)
        # Not the owner: release must fail.
        try:
            rl.release()
            errors.append("RLock released by a non-owner")
        except RuntimeError:
            pass

    join_all([spawn(work, k) for k in range(n)], "rlock")
    s = sum(totals.values())
    check(s == n * iters and len(totals) == n, "rlock total %d" % s)
    out("rlock: threads %d, nested acquires %d, keys %d"
        % (n, s * 3, len(totals)))



def timed_out(wait, what):
    """wait() (with a 30 ms timeout) returns False, not before 29 ms."""
    t0 = time.monotonic()
    r = wait()
    w = time.monotonic() - t0
    check(r is False and w >= 0.029, "%s timeout %r %.4f" % (what, r, w))

# ---- Condition --------------------------------------------------------------

def sec_condition():
    # notify_all to 100 waiters, in three generations.
    n, gens = 100, 3
    cond = threading.Condition()
    state = {"gen": 0, "seen": 0, "ready": 0}

    def waiter():
        for g in range(1, gens + 1):
            with cond:
                state["ready"] += 1
                cond.notify_all()
                while state["gen"] < g:
                    cond.wait()
                state["seen"] += 1

    ths = [spawn(waiter) for _ in range(n)]
    for g in range(1, gens + 1):
        with cond:
            ok = cond.wait_for(lambda: state["ready"] == g * n, timeout=30)
            check(ok, "condition: waiters not ready (%d)" % state["ready"])
            state["gen"] = g
            cond.notify_all()
    join_all(ths, "condition notify_all")
    check(state["seen"] == n * gens, "condition seen %d" % state["seen"])

    # Ping-pong between two threads.
    rounds = 2000
    pp = threading.Condition(threading.Lock())
    turn = {"who": 0, "count": 0}

    def player(me):
        for _ in range(rounds):
            with pp:
                while turn["who"] != me:
                    pp.wait()
                turn["count"] += 1
                turn["who"] = 1 - me
                pp.notify()

    join_all([spawn(player, 0), spawn(player, 1)], "condition ping-pong")
    check(turn["count"] == 2 * rounds, "ping-pong %d" % turn["count"])

    # Bounded buffer, 10 producers and 10 consumers, capacity 4.
    cap, per, np_ = 4, 300, 10
    buf = []
    bc = threading.Condition()
    consumed = []
    done = {"producers": 0}

    def producer(p):
        for i in range(per):
            with bc:
                while len(buf) >= cap:
                    bc.wait()
                buf.append(p * per + i)
                bc.notify_all()
        with bc:
            done["producers"] += 1
            bc.notify_all()

    def consumer():
        mine = []
        while True:
            with bc:
                while not buf and done["producers"] < np_:
                    bc.wait()
                if not buf:
                    break
                mine.append(buf.pop(0))
                bc.notify_all()
        with bc:
            consumed.extend(mine)

    ths = [spawn(producer, p) for p in range(np_)]
    ths += [spawn(consumer) for _ in range(np_)]
    join_all(ths, "bounded buffer")
    check(sorted(consumed) == list(range(np_ * per)),
          "bounded buffer lost or duplicated items (%d)" % len(consumed))

    # wait() with a timeout and nobody to notify.
    with cond:
        timed_out(lambda: cond.wait(timeout=0.03), "condition wait")
    out("condition: waiters %d x %d generations seen %d, ping-pong %d, "
        "bounded buffer %d items sum %d, wait timeout False"
        % (n, gens, state["seen"], turn["count"], len(consumed),
           sum(consumed)))


# ---- Semaphore --------------------------------------------------------------

def sec_semaphore():
    n, limit, iters = 100, 5, 20
    sem = threading.BoundedSemaphore(limit)
    lk = threading.Lock()
    st = {"inside": 0, "max": 0, "entries": 0}

    def work():
        for _ in range(iters):
            with sem:
                with lk:
                    st["inside"] += 1
                    st["entries"] += 1
                    st["max"] = max(st["max"], st["inside"])
                time.sleep(0)
                with lk:
                    st["inside"] -= 1

    join_all([spawn(work) for _ in range(n)], "semaphore")
    check(st["max"] <= limit and st["entries"] == n * iters,
          "semaphore %r" % st)
    try:
        sem.release()
        over = "no error"
    except ValueError:
        over = "ValueError"
    plain = threading.Semaphore(0)
    timed_out(lambda: plain.acquire(timeout=0.03), "semaphore acquire")
    out("semaphore: threads %d, entries %d, at most %d inside %s, "
        "over-release %s, timed acquire False"
        % (n, st["entries"], limit, st["max"] <= limit, over))


# ---- Event ------------------------------------------------------------------

def sec_event():
    n = 100
    ev = threading.Event()
    gate = threading.Event()
    lk = threading.Lock()
    cnt = {"woken": 0, "early": 0}

    def work():
        if ev.is_set():
            with lk:
                cnt["early"] += 1
        r = ev.wait(timeout=30)
        with lk:
            cnt["woken"] += r is True

    ths = [spawn(work) for _ in range(n)]
    time.sleep(0.05)
    ev.set()
    join_all(ths, "event")
    t0 = time.monotonic()
    r = gate.wait(0.03)
    w = time.monotonic() - t0
    check(cnt["woken"] == n and cnt["early"] == 0, "event %r" % cnt)
    check(r is False and w >= 0.029, "event timeout %r %.4f" % (r, w))
    out("event: threads %d, woken %d, wait timeout False" % (n, cnt["woken"]))


# ---- Barrier ----------------------------------------------------------------

def sec_barrier():
    n, rounds = 40, 25
    bar = threading.Barrier(n)
    idx = [[] for _ in range(rounds)]
    lk = threading.Lock()

    def work():
        for r in range(rounds):
            i = bar.wait(timeout=30)
            with lk:
                idx[r].append(i)

    join_all([spawn(work) for _ in range(n)], "barrier")
    for r in range(rounds):
        check(sorted(idx[r]) == list(range(n)),
              "barrier round %d indices %r" % (r, sorted(idx[r])))

    # abort() breaks the waiters out with BrokenBarrierError.
    b2 = threading.Barrier(4)
    broken = []

    def w2():
        try:
            b2.wait(timeout=30)
        except threading.BrokenBarrierError:
            with lk:
                broken.append(1)

    ths = [spawn(w2) for _ in range(3)]
    while b2.n_waiting < 3:
        time.sleep(0.001)
    b2.abort()
    join_all(ths, "barrier abort")
    check(len(broken) == 3 and b2.broken, "barrier abort %d" % len(broken))
    out("barrier: threads %d, rounds %d, indices complete True, "
        "aborted waiters %d" % (n, rounds, len(broken)))


# ---- queue.Queue ------------------------------------------------------------

def sec_queue():
    np_, nc, per = 50, 50, 200
    q = queue.Queue(maxsize=64)
    sums = [0] * nc
    counts = [0] * nc

    def producer(p):
        for i in range(per):
            q.put(p * per + i)

    def consumer(c):
        while True:
            item = q.get()
            if item is None:
                q.task_done()
                return
            sums[c] += item
            counts[c] += 1
            q.task_done()

    cons = [spawn(consumer, c) for c in range(nc)]
    prods = [spawn(producer, p) for p in range(np_)]
    join_all(prods, "queue producers")
    q.join()
    for _ in range(nc):
        q.put(None)
    join_all(cons, "queue consumers")
    total = np_ * per
    check(sum(counts) == total and sum(sums) == total * (total - 1) // 2,
          "queue count %d sum %d" % (sum(counts), sum(sums)))
    try:
        queue.Queue().get(timeout=0.03)
        emp = "item"
    except queue.Empty:
        emp = "Empty"
    out("queue: producers %d, consumers %d, items %d, sum %d, "
        "get timeout %s" % (np_, nc, sum(counts), sum(sums), emp))


# ---- threading.local ---------------------------------------------------------

def sec_local():
    n, iters = 100, 50
    loc = threading.local()
    loc.value = "main"
    bad = []
    lk = threading.Lock()
    start = threading.Barrier(n)

    def work(k):
        if hasattr(loc, "value"):
            with lk:
                bad.append("thread %d saw main's value" % k)
        loc.value = k
        loc.items = []
        start.wait(timeout=30)
        for i in range(iters):
            loc.items.append(i)
            time.sleep(0)
            if loc.value != k:
                with lk:
                    bad.append("thread %d saw %r" % (k, loc.value))
                return
        if sum(loc.items) != iters * (iters - 1) // 2:
            with lk:
                bad.append("thread %d items" % k)

    join_all([spawn(work, k) for k in range(n)], "local")
    check(not bad, "local: %s" % (bad[:3],))
    check(loc.value == "main" and not hasattr(loc, "items"),
          "local: main's value changed")
    out("local: threads %d, isolated True, main's value kept True" % n)


# ---- ThreadPoolExecutor ------------------------------------------------------

def square(x):
    return x * x


def slow_task(x):
    if x % 1000 == 0:
        time.sleep(0.001)
    return x * 3 + 1


def boom(x):
    raise ValueError("task %d" % x)


def sec_pool():
    tasks = 10000
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as ex:
        msum = sum(ex.map(square, range(tasks)))
        futs = {ex.submit(slow_task, i): i for i in range(tasks)}
        seen, csum = 0, 0
        for f in concurrent.futures.as_completed(futs, timeout=60):
            r = f.result()
            check(r == futs[f] * 3 + 1, "future %d result %d" % (futs[f], r))
            seen += 1
            csum += r
        ef = ex.submit(boom, 7)
        try:
            ef.result(timeout=30)
            exc = "none"
        except ValueError as e:
            exc = str(e)
        workers = len(ex._threads)
    check(msum == sum(i * i for i in range(tasks)), "map sum %d" % msum)
    check(seen == tasks and csum == sum(i * 3 + 1 for i in range(tasks)),
          "as_completed %d %d" % (seen, csum))
    check(1 <= workers <= 32, "pool workers %d" % workers)
    out("pool: workers <= 32 True, map %d sum %d, as_completed %d sum %d, "
        "exception \"%s\"" % (tasks, msum, seen, csum, exc))


# ---- sleeps ------------------------------------------------------------------

def sec_sleep():
    n = 50
    short = []
    lk = threading.Lock()

    def work(k):
        d = 0.005 * (1 + k % 10)
        t0 = time.monotonic()
        time.sleep(d)
        w = time.monotonic() - t0
        if w < d * 0.99:
            with lk:
                short.append((k, d, w))

    t0 = time.monotonic()
    join_all([spawn(work, k) for k in range(n)], "sleep")
    total = time.monotonic() - t0
    check(not short, "sleeps returned early: %r" % short[:3])
    # 50 threads sleeping at most 50 ms at once: far below the serial 1.375 s.
    check(total < 1.0, "sleepers took %.3f s together" % total)
    out("sleep: threads %d, none early True, overlapped True" % n)


# ---- socket and pipe I/O ----------------------------------------------------

def recv_exact(s, n):
    parts = []
    while n > 0:
        b = s.recv(n)
        if not b:
            raise EOFError("peer closed")
        parts.append(b)
        n -= len(b)
    return b"".join(parts)


def sec_socketpair():
    pairs, msgs = 20, 100
    got = [0] * pairs

    def echo(s):
        with s:
            while True:
                b = s.recv(65536)
                if not b:
                    return
                s.sendall(b)

    def client(k, s):
        with s:
            if k % 2:
                s.settimeout(20)      # poll + non-blocking inside CPython
            total = 0
            for i in range(msgs):
                m = bytes([(k + i) & 255]) * (1 + (k * 131 + i * 17) % 5000)
                s.sendall(m)
                if recv_exact(s, len(m)) != m:
                    errors.append("socketpair %d msg %d differs" % (k, i))
                    return
                total += len(m)
            s.shutdown(socket.SHUT_WR)
            if s.recv(1) != b"":
                errors.append("socketpair %d: no EOF" % k)
            got[k] = total

    ths = []
    for k in range(pairs):
        a, b = socket.socketpair()
        ths.append(spawn(echo, a))
        ths.append(spawn(client, k, b))
    join_all(ths, "socketpair")
    out("socketpair: pairs %d, messages %d, bytes echoed %d"
        % (pairs, pairs * msgs, sum(got)))


def sec_tcp():
    nclients, msgs = 20, 50
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    port = srv.getsockname()[1]
    handlers = []
    served = [0] * nclients

    def handler(c):
        with c:
            k = int.from_bytes(recv_exact(c, 2), "big")
            n = 0
            while True:
                hdr = c.recv(4)
                if not hdr:
                    break
                if len(hdr) < 4:
                    hdr += recv_exact(c, 4 - len(hdr))
                ln = int.from_bytes(hdr, "big")
                data = recv_exact(c, ln)
                c.sendall(hdr + data[::-1])
                n += 1
            served[k] = n

    def acceptor():
        for _ in range(nclients):
            c, _ = srv.accept()
            handlers.append(spawn(handler, c))

    def client(k):
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(k.to_bytes(2, "big"))
            for i in range(msgs):
                data = (b"%d:%d:" % (k, i)) * (1 + (k + i) % 300)
                s.sendall(len(data).to_bytes(4, "big") + data)
                hdr = recv_exact(s, 4)
                if recv_exact(s, int.from_bytes(hdr, "big")) != data[::-1]:
                    errors.append("tcp client %d msg %d differs" % (k, i))
                    return

    acc = spawn(acceptor)
    clients = [spawn(client, k) for k in range(nclients)]
    join_all([acc], "tcp acceptor")
    join_all(clients, "tcp clients")
    join_all(handlers, "tcp handlers")
    srv.close()
    check(served == [msgs] * nclients, "tcp served %r" % served)
    out("tcp: clients %d, handlers %d, requests %d"
        % (nclients, len(handlers), sum(served)))


def sec_pipe():
    npipes, chunks = 10, 50
    results = [None] * npipes

    def reader(k, rfd, use_select):
        h = 0
        n = 0
        with os.fdopen(rfd, "rb", buffering=0) as f:
            while True:
                if use_select:
                    r, _, _ = select.select([rfd], [], [], 20)
                    if not r:
                        errors.append("pipe %d: select timed out" % k)
                        return
                b = f.read(4096)
                if not b:
                    break
                n += len(b)
                h = zlib.crc32(b, h)
        results[k] = (n, h)

    def writer(k, wfd):
        with os.fdopen(wfd, "wb", buffering=0) as f:
            for i in range(chunks):
                data = bytes([(k * 7 + i) & 255]) * (1 + (k * 997 + i * 61) % 20000)
                view = memoryview(data)
                while view:
                    w = f.write(view)
                    view = view[w:]
                if i % 10 == 0:
                    time.sleep(0.001)

    ths = []
    for k in range(npipes):
        r, w = os.pipe()
        ths.append(spawn(reader, k, r, k % 2 == 0))
        ths.append(spawn(writer, k, w))
    join_all(ths, "pipe")
    exp = []
    for k in range(npipes):
        h, n = 0, 0
        for i in range(chunks):
            ln = 1 + (k * 997 + i * 61) % 20000
            c = (k * 7 + i) & 255
            n += ln
            h = zlib.crc32(bytes([c]) * ln, h)
        exp.append((n, h))
    check(results == exp, "pipe results %r != %r" % (results[:2], exp[:2]))
    out("pipe: pipes %d, bytes %d, checksums match True"
        % (npipes, sum(n for n, _ in results)))


# ---- short-lived threads -----------------------------------------------------

def sec_churn(n):
    vals = [None] * n
    wave = 50

    def work(k):
        vals[k] = (k * k) % 9973

    for i in range(0, n, wave):
        join_all([spawn(work, k) for k in range(i, min(n, i + wave))],
                 "churn")
    check(vals == [(k * k) % 9973 for k in range(n)], "churn values")
    out("churn: threads %d, results %d" % (n, sum(vals)))


def main():
    t0 = time.monotonic()
    sec_lock()
    sec_rlock()
    sec_condition()
    sec_semaphore()
    sec_event()
    sec_barrier()
    sec_queue()
    sec_local()
    sec_pool()
    sec_sleep()
    sec_socketpair()
    sec_tcp()
    sec_pipe()
    check(started < TOTAL_THREADS, "sections started %d threads" % started)
    sec_churn(TOTAL_THREADS - started)
    check(started == TOTAL_THREADS, "started %d threads" % started)
    alive = [t.name for t in threading.enumerate()
             if t is not threading.main_thread()]
    check(not alive, "threads still alive: %r" % alive[:5])
    check(threading.active_count() == 1,
          "active_count %d" % threading.active_count())
    out("threads started %d, alive at end %d" % (started, len(alive)))
    out("figure: %.2f s" % (time.monotonic() - t0))
    out("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
