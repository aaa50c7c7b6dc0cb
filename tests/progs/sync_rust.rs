// SPDX-License-Identifier: MIT
// Rust's std::sync across many threads, with exact results: Mutex,
// Condvar (a bounded queue, checksums; wait_timeout), mpsc channels with
// many producers (unbounded and sync_channel), RwLock (writers keep two
// fields equal, readers check), Barrier (one leader a round, every value
// seen) and Once (runs once while 64 threads call it). Since Rust 1.62
// these are built on the futex system call (through libc's syscall()),
// and threads on pthread_create. Only std APIs that rustc 1.63 has.
// Every line is the same under NPTL.
use std::collections::VecDeque;
use std::process;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Condvar, Mutex, Once, RwLock};
use std::thread;
use std::time::Duration;

fn check(ok: bool, what: &str) {
    if !ok {
        println!("FAIL: {}", what);
        process::exit(1);
    }
}

fn mix(v: u64) -> u64 {
    v.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

// The sum and xor-of-mixes of the values 1..=n.
fn expected(n: u64) -> (u64, u64) {
    let (mut s, mut x) = (0u64, 0u64);
    for v in 1..=n {
        s += v;
        x ^= mix(v);
    }
    (s, x)
}

// Start n threads running f(i) and wait for them all.
fn run_threads<F>(n: usize, f: F)
where
    F: Fn(usize) + Send + Sync + 'static,
{
    let f = Arc::new(f);
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let f = Arc::clone(&f);
            thread::spawn(move || f(i))
        })
        .collect();
    for h in handles {
        check(h.join().is_ok(), "a thread panicked");
    }
}

fn mutex_counter() {
    let counter = Arc::new(Mutex::new(0u64));
    let c = Arc::clone(&counter);
    run_threads(64, move |id| {
        for i in 0..1000 {
            let mut g = c.lock().unwrap();
            let v = *g;
            if (id + i) % 16 == 0 {
                thread::yield_now();
            }
            *g = v + 1;
        }
    });
    let total = *counter.lock().unwrap();
    check(total == 64_000, "mutex total");
    println!("Mutex: 64 threads x 1000 = {}", total);
}

struct Queue {
    items: Mutex<VecDeque<u64>>,
    not_full: Condvar,
    not_empty: Condvar,
}

const CAP: usize = 8;

fn put(q: &Queue, v: u64) {
    let mut items = q.items.lock().unwrap();
    while items.len() >= CAP {
        items = q.not_full.wait(items).unwrap();
    }
    items.push_back(v);
    q.not_empty.notify_one();
}

fn take(q: &Queue) -> u64 {
    let mut items = q.items.lock().unwrap();
    loop {
        if let Some(v) = items.pop_front() {
            q.not_full.notify_one();
            return v;
        }
        items = q.not_empty.wait(items).unwrap();
    }
}

fn condvar_queue() {
    let (np, nc, per) = (8usize, 8usize, 2000u64);
    let q = Arc::new(Queue {
        items: Mutex::new(VecDeque::new()),
        not_full: Condvar::new(),
        not_empty: Condvar::new(),
    });
    let sums = Arc::new(Mutex::new((0u64, 0u64, 0u64)));
    let mut consumers = Vec::new();
    for _ in 0..nc {
        let q = Arc::clone(&q);
        let sums = Arc::clone(&sums);
        consumers.push(thread::spawn(move || {
            let (mut s, mut x, mut n) = (0u64, 0u64, 0u64);
            loop {
                let v = take(&q);
                if v == 0 {
                    break;
                }
                s += v;
                x ^= mix(v);
                n += 1;
            }
            let mut t = sums.lock().unwrap();
            t.0 += s;
            t.1 ^= x;
            t.2 += n;
        }));
    }
    let qp = Arc::clone(&q);
    run_threads(np, move |p| {
        for i in 0..per {
            put(&qp, (p as u64) * per + i + 1);
        }
    });
    for _ in 0..nc {
        put(&q, 0);
    }
    for h in consumers {
        check(h.join().is_ok(), "a consumer panicked");
    }
    let (ws, wx) = expected((np as u64) * per);
    let t = *sums.lock().unwrap();
    check(t.0 == ws && t.1 == wx && t.2 == (np as u64) * per, "queue checksums");
    println!(
        "Condvar queue, {}x{}, capacity {}: {} items, checksums match",
        np, nc, CAP, t.2
    );
    let items = q.items.lock().unwrap();
    let (_items, res) = q
        .not_empty
        .wait_timeout(items, Duration::from_millis(20))
        .unwrap();
    println!("Condvar::wait_timeout(20 ms), nobody notifies: timed out {}", res.timed_out());
}

fn channels() {
    let (tx, rx) = mpsc::channel::<u64>();
    let mut producers = Vec::new();
    for p in 0..64u64 {
        let tx = tx.clone();
        producers.push(thread::spawn(move || {
            for i in 0..1000u64 {
                tx.send(p * 1000 + i + 1).unwrap();
                if i % 100 == 0 {
                    thread::yield_now();
                }
            }
        }));
    }
    drop(tx);
    let (mut s, mut x, mut n) = (0u64, 0u64, 0u64);
    for v in rx {
        s += v;
        x ^= mix(v);
        n += 1;
    }
    for h in producers {
        check(h.join().is_ok(), "a producer panicked");
    }
    let (ws, wx) = expected(64_000);
    check(s == ws && x == wx && n == 64_000, "channel checksums");
    println!("mpsc::channel, 64 producers x 1000: {} received, checksums match", n);

    let (stx, srx) = mpsc::sync_channel::<u64>(4);
    let mut senders = Vec::new();
    for p in 0..16u64 {
        let stx = stx.clone();
        senders.push(thread::spawn(move || {
            for i in 0..500u64 {
                stx.send(p * 500 + i + 1).unwrap();
            }
        }));
    }
    drop(stx);
    let total: u64 = srx.iter().sum();
    for h in senders {
        check(h.join().is_ok(), "a sender panicked");
    }
    check(total == (1..=8000u64).sum::<u64>(), "sync_channel sum");
    println!("mpsc::sync_channel(4), 16 producers x 500: sum {}", total);
}

fn rwlock() {
    let lock = Arc::new(RwLock::new((0u64, 0u64)));
    let reads = Arc::new(AtomicUsize::new(0));
    let bad = Arc::new(AtomicUsize::new(0));
    let (l, r, b) = (Arc::clone(&lock), Arc::clone(&reads), Arc::clone(&bad));
    run_threads(32, move |id| {
        for i in 0..300 {
            if id < 8 {
                let mut w = l.write().unwrap();
                w.0 += 1;
                if i % 4 == 0 {
                    thread::yield_now();
                }
                w.1 += 1;
            } else {
                let g = l.read().unwrap();
                let a = g.0;
                if i % 4 == 0 {
                    thread::yield_now();
                }
                if a != g.1 {
                    b.fetch_add(1, Ordering::SeqCst);
                }
                r.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let g = lock.read().unwrap();
    check(bad.load(Ordering::SeqCst) == 0, "a reader saw unequal fields");
    check(g.0 == 2400 && g.1 == 2400, "rwlock fields");
    check(reads.load(Ordering::SeqCst) == 7200, "rwlock reads");
    println!(
        "RwLock: 8 writers x 300 = {}, 24 readers x 300 = {}, fields always equal",
        g.0,
        reads.load(Ordering::SeqCst)
    );
}

fn barrier() {
    let (n, rounds) = (16usize, 100usize);
    let bar = Arc::new(Barrier::new(n));
    let slots: Arc<Vec<AtomicUsize>> = Arc::new((0..2 * n).map(|_| AtomicUsize::new(0)).collect());
    let leaders: Arc<Vec<AtomicUsize>> = Arc::new((0..rounds).map(|_| AtomicUsize::new(0)).collect());
    let bad = Arc::new(AtomicUsize::new(0));
    let (b, s, l, bd) = (Arc::clone(&bar), Arc::clone(&slots), Arc::clone(&leaders), Arc::clone(&bad));
    run_threads(n, move |id| {
        for r in 0..rounds {
            s[(r % 2) * n + id].store(r * 1000 + id, Ordering::SeqCst);
            if b.wait().is_leader() {
                l[r].fetch_add(1, Ordering::SeqCst);
            }
            for j in 0..n {
                if s[(r % 2) * n + j].load(Ordering::SeqCst) != r * 1000 + j {
                    bd.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    });
    check(bad.load(Ordering::SeqCst) == 0, "a stale slot after the barrier");
    check(leaders.iter().all(|x| x.load(Ordering::SeqCst) == 1), "leaders per round");
    println!("Barrier: {} threads x {} rounds, one leader a round, every value seen", n, rounds);
}

static ONCE: Once = Once::new();
static ONCE_RUNS: AtomicUsize = AtomicUsize::new(0);
static ONCE_DONE: AtomicUsize = AtomicUsize::new(0);

fn once() {
    let early = Arc::new(AtomicUsize::new(0));
    let e = Arc::clone(&early);
    run_threads(64, move |_| {
        ONCE.call_once(|| {
            ONCE_RUNS.fetch_add(1, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(20));
            ONCE_DONE.store(1, Ordering::SeqCst);
        });
        if ONCE_DONE.load(Ordering::SeqCst) != 1 {
            e.fetch_add(1, Ordering::SeqCst);
        }
    });
    check(early.load(Ordering::SeqCst) == 0, "call_once returned before the routine finished");
    println!(
        "Once: 64 threads, routine sleeps: ran {} time(s), every caller saw it done",
        ONCE_RUNS.load(Ordering::SeqCst)
    );
}

fn main() {
    mutex_counter();
    condvar_queue();
    channels();
    rwlock();
    barrier();
    once();
    println!("PASS sync_rust");
}
