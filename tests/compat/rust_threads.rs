// SPDX-License-Identifier: MIT
// tests/compat/rust_threads.rs — Rust's std threads and synchronization,
// with many threads (std only; builds with rustc 1.63:
// `rustc -O -o rust_threads rust_threads.rs`).
//
// Since Rust 1.62 the standard library's Mutex, RwLock, Condvar and thread
// parking wait on futex words with syscall(SYS_futex) rather than through
// pthread mutexes and condition variables.
//
// Exercises, section by section:
//   spawn      thread::spawn of 200 threads returning values; Builder with
//              names (read back with thread::current and pthread_getname_np)
//              and a stack size large enough for a deep recursion; panics
//              caught by join
//   scope      thread::scope borrowing local data mutably and shared,
//              Builder::spawn_scoped
//   mutex      Mutex counters from 64 threads, try_lock, poisoning by a
//              panicking holder
//   rwlock     RwLock: 8 writers and 56 readers checking an invariant;
//              try_write/try_read against held guards
//   condvar    a bounded queue with Condvar::wait_while (64 producers, 4
//              consumers); wait_timeout and wait_timeout_while timeouts;
//              notify_all to 64 waiters; turn-taking printing from 32 threads
//   mpsc       channel with 64 producers, sync_channel(8) with 32 producers,
//              a rendezvous sync_channel(0), a worker pool sharing one
//              Receiver, recv_timeout, disconnection
//   barrier    Barrier of 64 threads for 100 rounds, one leader per round
//   once       Once from 200 threads, a lazily built shared value behind a
//              Mutex<Option<Arc<_>>>, call_once_force after a panic
//   park       park/unpark relay through 64 threads, unpark before park,
//              park_timeout
//   atomics    fetch_add, fetch_max, compare_exchange spin lock with yield_now
//   tls        thread_local! values with Drop (drops counted per thread),
//              a thread_local touched from another's Drop, Arc/Weak counts
//
// Prints one line per check with counts and sums only (nothing that depends on
// timing or interleaving), then "DONE". A failed check prints "FAIL: ..." on
// stderr and exits with status 1.
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Condvar, Mutex, Once, RwLock, TryLockError, Weak};
use std::thread;
use std::time::{Duration, Instant};

macro_rules! check {
    ($cond:expr) => {
        if !$cond {
            eprintln!("FAIL: {}:{}: {}", file!(), line!(), stringify!($cond));
            std::process::exit(1);
        }
    };
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            eprintln!("FAIL: {}:{}: {}: {}", file!(), line!(), stringify!($cond), format!($($arg)+));
            std::process::exit(1);
        }
    };
}

extern "C" {
    fn pthread_self() -> usize;
    fn pthread_getname_np(thread: usize, name: *mut u8, len: usize) -> i32;
}

/// The calling thread's name as pthread_getname_np reports it.
fn os_thread_name() -> String {
    let mut buf = [0u8; 64];
    let r = unsafe { pthread_getname_np(pthread_self(), buf.as_mut_ptr(), buf.len()) };
    if r != 0 {
        return format!("<error {}>", r);
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Panics from threads whose name starts with "panicker" are expected:
/// keep their messages off stderr.
fn quiet_expected_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let name = thread::current().name().map(str::to_owned);
        if name.as_deref().map_or(false, |n| n.starts_with("panicker")) {
            return;
        }
        default(info);
    }));
}

// ---------------------------------------------------------------- spawn
/// Recursion that needs about depth * 4 KiB of stack.
fn deep(depth: usize) -> u64 {
    let mut page = [0u8; 4096];
    for (i, b) in page.iter_mut().enumerate().step_by(512) {
        unsafe { std::ptr::write_volatile(b, (i + depth) as u8) };
    }
    let below = if depth > 0 { deep(depth - 1) } else { 0 };
    let mut s = below;
    for b in page.iter().step_by(512) {
        s += unsafe { std::ptr::read_volatile(b) } as u64;
    }
    s
}

fn test_spawn() {
    const N: u64 = 200;
    let handles: Vec<_> = (0..N)
        .map(|i| thread::spawn(move || (0..=1000 + i).sum::<u64>()))
        .collect();
    let sum: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!("spawn: threads={} sum={}", N, sum);

    // Named threads with a given stack size.
    let named: Vec<_> = (0..16)
        .map(|i| {
            thread::Builder::new()
                .name(format!("worker-{}", i))
                .stack_size(256 * 1024)
                .spawn(move || {
                    let rust = thread::current().name().unwrap().to_owned();
                    let os = os_thread_name();
                    (rust == format!("worker-{}", i), os == rust)
                })
                .unwrap()
        })
        .collect();
    let (mut rust_ok, mut os_ok) = (0, 0);
    for h in named {
        let (a, b) = h.join().unwrap();
        rust_ok += a as u32;
        os_ok += b as u32;
    }
    // A name longer than the kernel's 15 bytes is cut short there.
    let long = thread::Builder::new()
        .name("a-very-long-thread-name".into())
        .spawn(|| (thread::current().name().unwrap().to_owned(), os_thread_name()))
        .unwrap()
        .join()
        .unwrap();
    // 3000 frames of 4 KiB: more than the default 2 MiB stack.
    let big = thread::Builder::new()
        .name("deep".into())
        .stack_size(32 << 20)
        .spawn(|| deep(3000))
        .unwrap()
        .join()
        .unwrap();
    println!(
        "spawn: named rust={} os={} long=\"{}\"/\"{}\" main=\"{}\" deep recursion={}",
        rust_ok,
        os_ok,
        long.0,
        long.1,
        thread::current().name().unwrap_or("?"),
        big
    );

    // Panics come back from join as errors carrying the payload.
    let panickers: Vec<_> = (0..8)
        .map(|i| {
            thread::Builder::new()
                .name(format!("panicker-{}", i))
                .spawn(move || {
                    if i % 2 == 0 {
                        panic!("even {}", i);
                    }
                    i
                })
                .unwrap()
        })
        .collect();
    let (mut caught, mut values) = (0, 0);
    for h in panickers {
        match h.join() {
            Ok(v) => values += v,
            Err(e) => {
                if let Some(s) = e.downcast_ref::<String>() {
                    caught += s.starts_with("even ") as u32;
                }
            }
        }
    }
    println!("spawn: panics caught={} values={}", caught, values);
}

// ---------------------------------------------------------------- scope
fn test_scope() {
    let mut data: Vec<u64> = (0..64_000).collect();
    let factor = 3u64;
    let total = AtomicU64::new(0);
    thread::scope(|s| {
        for chunk in data.chunks_mut(1000) {
            let total = &total;
            s.spawn(move || {
                let mut local = 0;
                for v in chunk.iter_mut() {
                    *v *= factor;
                    local += *v;
                }
                total.fetch_add(local, SeqCst);
            });
        }
    });
    let sum: u64 = data.iter().sum();
    check!(sum == total.load(SeqCst));
    let words = ["alpha", "beta", "gamma", "delta"];
    let lens = thread::scope(|s| {
        let hs: Vec<_> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                thread::Builder::new()
                    .name(format!("scoped-{}", i))
                    .spawn_scoped(s, move || (thread::current().name().unwrap().len(), w.len()))
                    .unwrap()
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    println!("scope: chunks=64 sum={} name lengths={} word lengths={}", sum, lens.0, lens.1);
}

// ---------------------------------------------------------------- mutex
fn test_mutex() {
    const N: usize = 64;
    const ITER: u64 = 2000;
    let m = Arc::new(Mutex::new((0u64, 0u64)));
    let hs: Vec<_> = (0..N)
        .map(|i| {
            let m = Arc::clone(&m);
            thread::spawn(move || {
                for k in 0..ITER {
                    let mut g = m.lock().unwrap();
                    g.0 += 1;
                    g.1 += (i as u64) * k;
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let (count, weighted) = *m.lock().unwrap();
    check!(count == N as u64 * ITER);

    // try_lock while another thread holds it.
    let held = Arc::new(Mutex::new(5));
    let g = held.lock().unwrap();
    let h2 = Arc::clone(&held);
    let busy = thread::spawn(move || matches!(h2.try_lock(), Err(TryLockError::WouldBlock)))
        .join()
        .unwrap();
    drop(g);
    let h3 = Arc::clone(&held);
    let free = thread::spawn(move || h3.try_lock().map(|g| *g).unwrap_or(-1)).join().unwrap();

    // A holder that panics poisons the mutex; the data is still there.
    let p = Arc::new(Mutex::new(vec![1, 2, 3]));
    let p2 = Arc::clone(&p);
    let r = thread::Builder::new()
        .name("panicker-poison".into())
        .spawn(move || {
            let mut g = p2.lock().unwrap();
            g.push(4);
            panic!("while holding");
        })
        .unwrap()
        .join();
    let poisoned = p.is_poisoned();
    let len = match p.lock() {
        Ok(g) => g.len() as i32,
        Err(e) => e.into_inner().len() as i32 + 100,
    };
    println!(
        "mutex: count={} weighted={} try_lock busy={} free={} panicked={} poisoned={} len={}",
        count,
        weighted,
        busy,
        free,
        r.is_err(),
        poisoned,
        len
    );
}

// ---------------------------------------------------------------- rwlock
fn test_rwlock() {
    const W: usize = 8;
    const R: usize = 56;
    const ITER: u64 = 2000;
    let rw = Arc::new(RwLock::new((0u64, 0u64)));
    let reads = Arc::new(AtomicU64::new(0));
    let torn = Arc::new(AtomicU64::new(0));
    let hs: Vec<_> = (0..W + R)
        .map(|i| {
            let (rw, reads, torn) = (Arc::clone(&rw), Arc::clone(&reads), Arc::clone(&torn));
            thread::spawn(move || {
                for _ in 0..ITER {
                    if i % 8 == 0 {
                        let mut g = rw.write().unwrap();
                        g.0 += 1;
                        g.1 += 2;
                    } else {
                        let g = rw.read().unwrap();
                        if g.1 != 2 * g.0 {
                            torn.fetch_add(1, SeqCst);
                        }
                        reads.fetch_add(1, SeqCst);
                    }
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let v = *rw.read().unwrap();
    check!(torn.load(SeqCst) == 0);
    check!(v.0 == W as u64 * ITER);

    // While a reader holds it: try_read succeeds elsewhere, try_write fails.
    let g = rw.read().unwrap();
    let rw2 = Arc::clone(&rw);
    let (r_ok, w_busy) = thread::spawn(move || {
        let r = rw2.try_read().is_ok();
        let w = matches!(rw2.try_write(), Err(TryLockError::WouldBlock));
        (r, w)
    })
    .join()
    .unwrap();
    drop(g);
    // 16 readers hold it together.
    let together = Arc::new(Barrier::new(16));
    let hs: Vec<_> = (0..16)
        .map(|_| {
            let (rw, together) = (Arc::clone(&rw), Arc::clone(&together));
            thread::spawn(move || {
                let g = rw.read().unwrap();
                together.wait();
                g.0
            })
        })
        .collect();
    let sum: u64 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    println!(
        "rwlock: writes={} reads={} torn={} try_read={} try_write busy={} readers together sum={}",
        v.0,
        reads.load(SeqCst),
        torn.load(SeqCst),
        r_ok,
        w_busy,
        sum
    );
}

// ---------------------------------------------------------------- condvar
struct Queue {
    items: std::collections::VecDeque<u64>,
    producers_left: usize,
}

fn test_condvar() {
    const P: usize = 64;
    const C: usize = 4;
    const ITEMS: u64 = 500;
    const CAP: usize = 16;
    let q = Arc::new((
        Mutex::new(Queue { items: Default::default(), producers_left: P }),
        Condvar::new(), // not empty (or done)
        Condvar::new(), // not full
    ));
    let consumed = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
    let mut hs = Vec::new();
    for _ in 0..C {
        let (q, consumed) = (Arc::clone(&q), Arc::clone(&consumed));
        hs.push(thread::spawn(move || {
            let (m, not_empty, not_full) = &*q;
            loop {
                let mut g = not_empty
                    .wait_while(m.lock().unwrap(), |s| s.items.is_empty() && s.producers_left > 0)
                    .unwrap();
                match g.items.pop_front() {
                    Some(v) => {
                        drop(g);
                        not_full.notify_one();
                        consumed.0.fetch_add(1, SeqCst);
                        consumed.1.fetch_add(v, SeqCst);
                    }
                    None => return,
                }
            }
        }));
    }
    for p in 0..P as u64 {
        let q = Arc::clone(&q);
        hs.push(thread::spawn(move || {
            let (m, not_empty, not_full) = &*q;
            for k in 0..ITEMS {
                let mut g = not_full.wait_while(m.lock().unwrap(), |s| s.items.len() >= CAP).unwrap();
                g.items.push_back(p * ITEMS + k);
                drop(g);
                not_empty.notify_one();
            }
            let mut g = m.lock().unwrap();
            g.producers_left -= 1;
            if g.producers_left == 0 {
                not_empty.notify_all();
            }
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
    let n = P as u64 * ITEMS;
    check!(consumed.0.load(SeqCst) == n);
    check!(consumed.1.load(SeqCst) == n * (n - 1) / 2);
    println!("condvar: queue items={} sum={}", consumed.0.load(SeqCst), consumed.1.load(SeqCst));

    // Timeouts: nobody notifies. A plain wait_timeout may wake spuriously,
    // so wait until the deadline has passed.
    let m = Mutex::new(0);
    let cv = Condvar::new();
    let start = Instant::now();
    let mut g = m.lock().unwrap();
    let mut timed_out = false;
    while start.elapsed() < Duration::from_millis(20) {
        let left = Duration::from_millis(20).saturating_sub(start.elapsed());
        let (g2, r) = cv.wait_timeout(g, left).unwrap();
        g = g2;
        timed_out = r.timed_out();
    }
    let waited = start.elapsed() >= Duration::from_millis(20);
    let t1 = Instant::now();
    let (g, r2) = cv.wait_timeout_while(g, Duration::from_millis(15), |v| *v == 0).unwrap();
    let waited2 = t1.elapsed() >= Duration::from_millis(15);
    println!(
        "condvar: wait_timeout timed_out={} waited={} wait_timeout_while timed_out={} waited={} value={}",
        timed_out,
        waited,
        r2.timed_out(),
        waited2,
        *g
    );
    drop(g);

    // A gate: 64 waiters released by one notify_all.
    let gate = Arc::new((Mutex::new((false, 0usize)), Condvar::new(), Condvar::new()));
    let hs: Vec<_> = (0..64)
        .map(|_| {
            let gate = Arc::clone(&gate);
            thread::spawn(move || {
                let (m, open, arrived) = &*gate;
                let mut g = m.lock().unwrap();
                g.1 += 1;
                arrived.notify_one();
                let g = open.wait_while(g, |s| !s.0).unwrap();
                g.0
            })
        })
        .collect();
    {
        let (m, open, arrived) = &*gate;
        let mut g = arrived.wait_while(m.lock().unwrap(), |s| s.1 < 64).unwrap();
        g.0 = true;
        open.notify_all();
    }
    let released = hs.into_iter().map(|h| h.join().unwrap() as u32).sum::<u32>();

    // Turn-taking: 32 threads print in a fixed order, each waiting its turn.
    let turn = Arc::new((Mutex::new(0usize), Condvar::new()));
    let hs: Vec<_> = (0..32)
        .rev()
        .map(|i| {
            let turn = Arc::clone(&turn);
            thread::Builder::new()
                .name(format!("printer-{:02}", i))
                .spawn(move || {
                    let (m, cv) = &*turn;
                    let mut g = cv.wait_while(m.lock().unwrap(), |t| *t != i).unwrap();
                    println!(
                        "condvar: turn {:2} printed by {} square={}",
                        i,
                        thread::current().name().unwrap(),
                        i * i
                    );
                    *g += 1;
                    cv.notify_all();
                })
                .unwrap()
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("condvar: gate released={} turns={}", released, *turn.0.lock().unwrap());
}

// ---------------------------------------------------------------- mpsc
fn test_mpsc() {
    // Many producers, one consumer.
    let (tx, rx) = mpsc::channel::<(usize, u64)>();
    let hs: Vec<_> = (0..64)
        .map(|p| {
            let tx = tx.clone();
            thread::spawn(move || {
                for k in 0..1000u64 {
                    tx.send((p, k)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut per = vec![0u64; 64];
    let mut n = 0u64;
    let mut in_order = true;
    let mut last = vec![None::<u64>; 64];
    for (p, k) in rx.iter() {
        per[p] += k;
        n += 1;
        // Messages from one producer arrive in the order it sent them.
        if let Some(l) = last[p] {
            in_order &= k == l + 1;
        }
        last[p] = Some(k);
    }
    for h in hs {
        h.join().unwrap();
    }
    check!(per.iter().all(|&s| s == 499_500));
    println!("mpsc: channel messages={} sum={} per-producer order kept={}", n, per.iter().sum::<u64>(), in_order);

    // A bounded channel: producers block when it is full.
    let (stx, srx) = mpsc::sync_channel::<u64>(8);
    let hs: Vec<_> = (0..32u64)
        .map(|p| {
            let stx = stx.clone();
            thread::spawn(move || {
                for k in 0..500 {
                    stx.send(p * 500 + k).unwrap();
                }
            })
        })
        .collect();
    drop(stx);
    let (mut count, mut sum) = (0u64, 0u64);
    while let Ok(v) = srx.recv() {
        count += 1;
        sum += v;
    }
    for h in hs {
        h.join().unwrap();
    }
    // Rendezvous: every send waits for its receive.
    let (ztx, zrx) = mpsc::sync_channel::<u32>(0);
    let (btx, brx) = mpsc::sync_channel::<u32>(0);
    let echo = thread::spawn(move || {
        let mut n = 0;
        for v in zrx.iter() {
            btx.send(v + 1).unwrap();
            n += 1;
        }
        n
    });
    let mut ball = 0;
    for _ in 0..1000 {
        ztx.send(ball).unwrap();
        ball = brx.recv().unwrap();
    }
    drop(ztx);
    let echoes = echo.join().unwrap();
    println!("mpsc: sync_channel count={} sum={} rendezvous ball={} echoes={}", count, sum, ball, echoes);

    // A worker pool sharing one receiver; results come back on another channel.
    let (jtx, jrx) = mpsc::channel::<u64>();
    let jrx = Arc::new(Mutex::new(jrx));
    let (rtx, rrx) = mpsc::channel::<u64>();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (jrx, rtx) = (Arc::clone(&jrx), rtx.clone());
            thread::spawn(move || loop {
                let job = jrx.lock().unwrap().recv();
                match job {
                    Ok(j) => rtx.send(j * j).unwrap(),
                    Err(_) => return,
                }
            })
        })
        .collect();
    drop(rtx);
    for j in 0..2000 {
        jtx.send(j).unwrap();
    }
    drop(jtx);
    let squares: u64 = rrx.iter().sum();
    for w in workers {
        w.join().unwrap();
    }
    // recv_timeout on an empty channel, then on a disconnected one.
    let (etx, erx) = mpsc::channel::<u8>();
    let t0 = Instant::now();
    let timeout = matches!(erx.recv_timeout(Duration::from_millis(20)), Err(mpsc::RecvTimeoutError::Timeout));
    let waited = t0.elapsed() >= Duration::from_millis(20);
    let late = thread::spawn(move || {
        thread::sleep(Duration::from_millis(10));
        etx.send(9).unwrap();
    });
    let got = erx.recv_timeout(Duration::from_secs(10)).unwrap_or(0);
    late.join().unwrap();
    let disconnected = matches!(erx.recv_timeout(Duration::from_secs(10)), Err(mpsc::RecvTimeoutError::Disconnected));
    let empty = matches!(erx.try_recv(), Err(mpsc::TryRecvError::Disconnected));
    println!(
        "mpsc: pool squares={} recv_timeout timeout={} waited={} late value={} disconnected={} try_recv disconnected={}",
        squares, timeout, waited, got, disconnected, empty
    );
}

// ---------------------------------------------------------------- barrier
fn test_barrier() {
    const N: usize = 64;
    const ROUNDS: usize = 100;
    let b = Arc::new(Barrier::new(N));
    let leaders = Arc::new(AtomicUsize::new(0));
    let arrivals = Arc::new(AtomicUsize::new(0));
    let mismatches = Arc::new(AtomicUsize::new(0));
    let hs: Vec<_> = (0..N)
        .map(|_| {
            let (b, leaders, arrivals, mismatches) =
                (Arc::clone(&b), Arc::clone(&leaders), Arc::clone(&arrivals), Arc::clone(&mismatches));
            thread::spawn(move || {
                for round in 0..ROUNDS {
                    arrivals.fetch_add(1, SeqCst);
                    if b.wait().is_leader() {
                        leaders.fetch_add(1, SeqCst);
                    }
                    // Everybody has arrived for this round.
                    if arrivals.load(SeqCst) < (round + 1) * N {
                        mismatches.fetch_add(1, SeqCst);
                    }
                    b.wait();
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    check!(leaders.load(SeqCst) == ROUNDS);
    check!(mismatches.load(SeqCst) == 0);
    println!(
        "barrier: rounds={} leaders={} arrivals={} early={}",
        ROUNDS,
        leaders.load(SeqCst),
        arrivals.load(SeqCst),
        mismatches.load(SeqCst)
    );
}

// ---------------------------------------------------------------- once
static INIT: Once = Once::new();
static INIT_RUNS: AtomicUsize = AtomicUsize::new(0);
static INIT_VALUE: AtomicU64 = AtomicU64::new(0);
static TABLE: Mutex<Option<Arc<Vec<u64>>>> = Mutex::new(None);
static TABLE_BUILDS: AtomicUsize = AtomicUsize::new(0);

/// A shared table built by the first caller only.
fn table() -> Arc<Vec<u64>> {
    let mut g = TABLE.lock().unwrap();
    if let Some(t) = &*g {
        return Arc::clone(t);
    }
    TABLE_BUILDS.fetch_add(1, SeqCst);
    thread::sleep(Duration::from_millis(5));
    let t = Arc::new((0..100u64).map(|i| i * i).collect());
    *g = Some(Arc::clone(&t));
    t
}

fn test_once() {
    const N: usize = 200;
    let go = Arc::new(Barrier::new(N));
    let hs: Vec<_> = (0..N)
        .map(|_| {
            let go = Arc::clone(&go);
            thread::spawn(move || {
                go.wait();
                INIT.call_once(|| {
                    INIT_RUNS.fetch_add(1, SeqCst);
                    thread::sleep(Duration::from_millis(10));
                    INIT_VALUE.store(17, SeqCst);
                });
                INIT_VALUE.load(SeqCst) + table()[10]
            })
        })
        .collect();
    let sum: u64 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    check!(INIT_RUNS.load(SeqCst) == 1 && TABLE_BUILDS.load(SeqCst) == 1);
    // A Once whose first call panics is poisoned; call_once_force still runs.
    let once = Arc::new(Once::new());
    let o2 = Arc::clone(&once);
    let first = thread::Builder::new()
        .name("panicker-once".into())
        .spawn(move || o2.call_once(|| panic!("first init fails")))
        .unwrap()
        .join();
    let mut forced = 0;
    let mut saw_poison = false;
    once.call_once_force(|state| {
        saw_poison = state.is_poisoned();
        forced += 1;
    });
    println!(
        "once: runs={} table builds={} sum={} table refs={} first panicked={} forced={} saw poison={} completed={}",
        INIT_RUNS.load(SeqCst),
        TABLE_BUILDS.load(SeqCst),
        sum,
        Arc::strong_count(&table()) - 1,
        first.is_err(),
        forced,
        saw_poison,
        once.is_completed()
    );
}

// ---------------------------------------------------------------- park
fn test_park() {
    // A relay: thread i waits for its flag, then sets i+1's and unparks it.
    const N: usize = 64;
    let flags: Arc<Vec<AtomicBool>> = Arc::new((0..=N).map(|_| AtomicBool::new(false)).collect());
    let handles: Arc<Mutex<Vec<Option<thread::Thread>>>> = Arc::new(Mutex::new(vec![None; N + 1]));
    handles.lock().unwrap()[N] = Some(thread::current());
    let ready = Arc::new(Barrier::new(N + 1));
    let order = Arc::new(Mutex::new(Vec::new()));
    let hs: Vec<_> = (0..N)
        .map(|i| {
            let (flags, handles, ready, order) =
                (Arc::clone(&flags), Arc::clone(&handles), Arc::clone(&ready), Arc::clone(&order));
            thread::spawn(move || {
                handles.lock().unwrap()[i] = Some(thread::current());
                ready.wait();
                while !flags[i].load(SeqCst) {
                    thread::park();
                }
                order.lock().unwrap().push(i);
                flags[i + 1].store(true, SeqCst);
                handles.lock().unwrap()[i + 1].as_ref().unwrap().unpark();
            })
        })
        .collect();
    ready.wait();
    flags[0].store(true, SeqCst);
    handles.lock().unwrap()[0].as_ref().unwrap().unpark();
    while !flags[N].load(SeqCst) {
        thread::park();
    }
    for h in hs {
        h.join().unwrap();
    }
    let order = order.lock().unwrap();
    let in_order = order.iter().enumerate().all(|(k, &i)| k == i);

    // An unpark before the park: the park returns at once.
    thread::current().unpark();
    let t0 = Instant::now();
    thread::park();
    let quick = t0.elapsed() < Duration::from_secs(5);
    // park_timeout with nobody unparking: wait out the whole time.
    let t1 = Instant::now();
    while t1.elapsed() < Duration::from_millis(20) {
        thread::park_timeout(Duration::from_millis(20).saturating_sub(t1.elapsed()));
    }
    // park_timeout ended by an unpark from another thread.
    let me = thread::current();
    let woken = Arc::new(AtomicBool::new(false));
    let w2 = Arc::clone(&woken);
    let u = thread::spawn(move || {
        thread::sleep(Duration::from_millis(5));
        w2.store(true, SeqCst);
        me.unpark();
    });
    let t2 = Instant::now();
    while !woken.load(SeqCst) && t2.elapsed() < Duration::from_secs(10) {
        thread::park_timeout(Duration::from_secs(10));
    }
    u.join().unwrap();
    println!(
        "park: relay threads={} in order={} unpark-first quick={} park_timeout waited={} unparked={}",
        order.len(),
        in_order,
        quick,
        t1.elapsed() >= Duration::from_millis(20),
        woken.load(SeqCst)
    );
}

// ---------------------------------------------------------------- atomics
fn test_atomics() {
    const N: u64 = 64;
    let counter = Arc::new(AtomicU64::new(0));
    let max = Arc::new(AtomicU64::new(0));
    let lock = Arc::new(AtomicBool::new(false));
    let guarded = Arc::new(AtomicU64::new(0)); // only changed under the spin lock
    let hs: Vec<_> = (0..N)
        .map(|i| {
            let (counter, max, lock, guarded) =
                (Arc::clone(&counter), Arc::clone(&max), Arc::clone(&lock), Arc::clone(&guarded));
            thread::spawn(move || {
                for k in 0..1000 {
                    counter.fetch_add(1, SeqCst);
                    max.fetch_max(i * 1000 + k, SeqCst);
                }
                for _ in 0..50 {
                    while lock.compare_exchange(false, true, SeqCst, SeqCst).is_err() {
                        thread::yield_now();
                    }
                    // A non-atomic read-modify-write: safe only under the lock.
                    let v = guarded.load(SeqCst);
                    thread::yield_now();
                    guarded.store(v + 1, SeqCst);
                    lock.store(false, SeqCst);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let updated = counter.fetch_update(SeqCst, SeqCst, |v| Some(v * 2)).unwrap();
    println!(
        "atomics: counter={} doubled={} max={} spin-locked={}",
        updated,
        counter.load(SeqCst),
        max.load(SeqCst),
        guarded.load(SeqCst)
    );
}

// ---------------------------------------------------------------- tls
static DROPS: AtomicUsize = AtomicUsize::new(0);
static DROP_SUM: AtomicU64 = AtomicU64::new(0);
static LATE_DROPS: AtomicUsize = AtomicUsize::new(0);

struct Tracker {
    id: u64,
    buf: Vec<u64>,
}
impl Drop for Tracker {
    fn drop(&mut self) {
        DROPS.fetch_add(1, SeqCst);
        DROP_SUM.fetch_add(self.id + self.buf.len() as u64, SeqCst);
        // Odd threads touch another thread_local for the first time here.
        if self.id % 2 == 1 {
            let _ = LATE.try_with(|l| l.0.set(self.id));
        }
    }
}

struct Late(Cell<u64>);
impl Drop for Late {
    fn drop(&mut self) {
        if self.0.get() != 0 {
            LATE_DROPS.fetch_add(1, SeqCst);
        }
    }
}

thread_local! {
    static TRACK: RefCell<Option<Tracker>> = RefCell::new(None);
    static COUNT: Cell<u64> = Cell::new(0);
    static LATE: Late = Late(Cell::new(0));
}

fn test_tls() {
    const N: u64 = 150;
    let shared = Arc::new(vec![1u8; 16]);
    let hs: Vec<_> = (0..N)
        .map(|i| {
            let shared = Arc::clone(&shared);
            thread::spawn(move || {
                TRACK.with(|t| *t.borrow_mut() = Some(Tracker { id: i, buf: vec![0; 10] }));
                for _ in 0..=i {
                    COUNT.with(|c| c.set(c.get() + 1));
                }
                let mine = COUNT.with(|c| c.get());
                drop(shared);
                mine
            })
        })
        .collect();
    let counts: u64 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    // Every thread's values were dropped before its join returned.
    let drops = DROPS.load(SeqCst);
    let late = LATE_DROPS.load(SeqCst);
    check!(drops == N as usize, "drops={}", drops);
    let weak: Weak<Vec<u8>> = Arc::downgrade(&shared);
    let strong = Arc::strong_count(&shared);
    drop(shared);
    println!(
        "tls: threads={} drops={} drop sum={} late drops={} counts={} main count={} arc strong={} weak alive={}",
        N,
        drops,
        DROP_SUM.load(SeqCst),
        late,
        counts,
        COUNT.with(|c| c.get()),
        strong,
        weak.upgrade().is_some()
    );
}

fn main() {
    quiet_expected_panics();
    test_spawn();
    test_scope();
    test_mutex();
    test_rwlock();
    test_condvar();
    test_mpsc();
    test_barrier();
    test_once();
    test_park();
    test_atomics();
    test_tls();
    println!("DONE");
}
