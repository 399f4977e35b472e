//! How many files a scan keeps in flight.
//!
//! On local disk the CPUs are the limit: one file per core. On object storage the round trip is:
//! a file costs two dependent round trips, so 32 files in flight at 50 ms read 320 files a second
//! whatever the CPUs could do. So by default a scan of object storage starts at
//! [`START`] files in flight and grows towards [`MAX`] while the store keeps up, the way TCP opens
//! its window: one more file per file done until the store first asks to slow down (S3's 503
//! SlowDown, GCS's 429, Azure's ServerBusy: [`vzplan_io::throttled`]), then halves, not below
//! [`MIN`], and after that grows by one per window of files done. A store that never throttles is
//! read with up to 256 files (about 500 requests) in flight; `--jobs N` fixes the number instead.
//!
//! More files in flight help only while the scan waits on the store. Each file in flight costs a
//! thread, its caches and a connection, and once the CPUs are the limit (a store next door) more
//! of them only cost time: 1,000 files on loopback take 0.51 s of wall and 0.8 s of CPU with 256
//! in flight against 0.28 s and 0.33 s with 32. So the limit grows only while the process uses
//! less than [`BUSY`] of the machine's CPUs, looked at every [`WINDOW`].

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Files in flight when a scan of object storage starts.
pub const START: usize = 32;
/// The most files in flight on object storage.
pub const MAX: usize = 256;
/// The fewest files in flight after backing off.
pub const MIN: usize = 8;
/// The share of the CPUs above which the limit stops growing.
pub const BUSY: f64 = 0.5;
/// How often the process's CPU use is looked at.
const WINDOW: Duration = Duration::from_millis(20);

/// A limit on files in flight, fixed or adaptive.
#[derive(Debug)]
pub struct Limit {
    state: Mutex<State>,
    freed: Condvar,
    /// Told when the limit grows (to whoever adds workers: [`Limit::wait_growth`]).
    grown: Condvar,
    adaptive: bool,
}

#[derive(Debug)]
struct State {
    limit: usize,
    in_flight: usize,
    /// Still doubling (no throttling seen yet).
    slow_start: bool,
    /// Files done since the limit last grew (after slow start) or was cut.
    done: usize,
    /// Files to finish before another cut: those in flight when the last cut was made.
    quiet: usize,
    /// [`vzplan_io::throttled`] when last looked at.
    throttled: u64,
    peak: usize,
    /// When the CPU use was last looked at, and the process's CPU time then.
    sampled: (Instant, Duration),
    /// The process used more than [`BUSY`] of the CPUs in the last window.
    busy: bool,
}

impl Limit {
    /// Always `n` files in flight.
    pub fn fixed(n: usize) -> Limit {
        Limit::new(n, false)
    }

    /// [`START`] files, adapting between [`MIN`] and [`MAX`].
    pub fn adaptive() -> Limit {
        Limit::new(START, true)
    }

    fn new(limit: usize, adaptive: bool) -> Limit {
        Limit {
            state: Mutex::new(State {
                limit,
                in_flight: 0,
                slow_start: true,
                done: 0,
                quiet: 0,
                throttled: vzplan_io::throttled(),
                peak: 0,
                sampled: (Instant::now(), process_cpu()),
                busy: false,
            }),
            freed: Condvar::new(),
            grown: Condvar::new(),
            adaptive,
        }
    }

    /// Whether the limit adapts (then workers are added as it grows: [`Limit::wait_growth`]).
    pub fn is_adaptive(&self) -> bool {
        self.adaptive
    }

    /// Files that may be in flight now.
    pub fn current(&self) -> usize {
        self.state.lock().map_or(1, |s| s.limit)
    }

    /// Waits until the limit is above `workers`, at most `timeout`.
    pub fn wait_growth(&self, workers: usize, timeout: Duration) {
        if let Ok(s) = self.state.lock() {
            let _ = self
                .grown
                .wait_timeout_while(s, timeout, |s| s.limit <= workers);
        }
    }

    /// The most files that were in flight at once.
    pub fn peak(&self) -> usize {
        self.state.lock().map_or(0, |s| s.peak)
    }

    /// Waits for room for one more file; the room is given back when the slot is dropped.
    pub fn acquire(&self) -> Slot<'_> {
        let room = self
            .state
            .lock()
            .and_then(|s| self.freed.wait_while(s, |s| s.in_flight >= s.limit));
        if let Ok(mut s) = room {
            s.in_flight += 1;
            s.peak = s.peak.max(s.in_flight);
        }
        Slot(self)
    }

    fn release(&self, throttled_now: u64) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        s.in_flight = s.in_flight.saturating_sub(1);
        let before = s.limit;
        if self.adaptive {
            s.look_at_cpu();
            s.adapt(throttled_now);
        }
        if s.limit > before {
            self.grown.notify_all();
        }
        // As many waiters as there is room for (the slot given back, and one more when the limit
        // grew): waking every waiting worker for each file done would cost more than the files.
        let room = s.limit.saturating_sub(s.in_flight).min(2);
        drop(s);
        for _ in 0..room {
            self.freed.notify_one();
        }
    }
}

impl State {
    /// Whether the process used more than [`BUSY`] of the CPUs since the last look, once a
    /// [`WINDOW`] has passed.
    fn look_at_cpu(&mut self) {
        let now = Instant::now();
        let wall = now.duration_since(self.sampled.0);
        if wall < WINDOW {
            return;
        }
        let cpu = process_cpu();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.busy = is_busy(cpu.saturating_sub(self.sampled.1), wall, cores);
        self.sampled = (now, cpu);
    }

    /// One file done; `throttled_now` as [`vzplan_io::throttled`] says.
    fn adapt(&mut self, throttled_now: u64) {
        self.quiet = self.quiet.saturating_sub(1);
        if throttled_now > self.throttled {
            self.throttled = throttled_now;
            // One cut per burst: the files in flight at a cut were sent before it took effect.
            if self.quiet == 0 {
                self.limit = (self.limit / 2).max(MIN);
                self.slow_start = false;
                self.done = 0;
                self.quiet = self.in_flight.max(1);
            }
            return;
        }
        if self.busy {
            return;
        }
        if self.slow_start {
            self.limit = (self.limit + 1).min(MAX);
            return;
        }
        self.done += 1;
        if self.done >= self.limit {
            self.done = 0;
            self.limit = (self.limit + 1).min(MAX);
        }
    }
}

/// Whether `used` CPU time over `wall` is more than [`BUSY`] of `cores` CPUs.
fn is_busy(used: Duration, wall: Duration, cores: usize) -> bool {
    used.as_secs_f64() > BUSY * cores as f64 * wall.as_secs_f64()
}

/// The CPU time (user and system) this process has used.
fn process_cpu() -> Duration {
    // SAFETY: getrusage writes into the struct it is given and reads nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Room for one file in flight (see [`Limit::acquire`]).
pub struct Slot<'a>(&'a Limit);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.release(vzplan_io::throttled());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(limit: usize) -> State {
        State {
            limit,
            in_flight: 0,
            slow_start: true,
            done: 0,
            quiet: 0,
            throttled: 0,
            peak: 0,
            sampled: (Instant::now(), Duration::ZERO),
            busy: false,
        }
    }

    #[test]
    fn grows_until_throttled_then_halves_once_per_burst() {
        let mut s = state(START);
        for _ in 0..100 {
            s.adapt(0);
        }
        assert_eq!(s.limit, 132, "one more per file done in slow start");
        for _ in 0..1000 {
            s.adapt(0);
        }
        assert_eq!(s.limit, MAX);
        // A burst of SlowDowns seen by many files in flight: one cut.
        s.in_flight = 200;
        s.adapt(1);
        assert_eq!(s.limit, MAX / 2);
        for t in 2..50 {
            s.adapt(t);
        }
        assert_eq!(
            s.limit,
            MAX / 2,
            "the files sent before the cut do not cut again"
        );
        // After the burst: one more per window of files done.
        s.in_flight = 10;
        for _ in 0..200 {
            s.adapt(49);
        }
        assert_eq!(s.limit, MAX / 2 + 1);
        // Throttled all the time: down to the floor, never below.
        for t in 50..2000 {
            s.quiet = 0;
            s.adapt(t);
        }
        assert_eq!(s.limit, MIN);
        // While the CPUs are the limit, it does not grow.
        let mut s = state(START);
        s.busy = true;
        for _ in 0..100 {
            s.adapt(0);
        }
        assert_eq!(s.limit, START);
    }

    #[test]
    fn cpu_use_is_measured() {
        let second = Duration::from_secs(1);
        assert!(is_busy(second, second, 1));
        assert!(!is_busy(second * 4 / 10, second, 1));
        assert!(is_busy(second * 12 / 10, second, 2));
        assert!(!is_busy(second * 9 / 10, second, 2));
        // The process's CPU time grows as a thread works.
        let before = process_cpu();
        let t = Instant::now();
        while process_cpu() < before + Duration::from_millis(2) && t.elapsed().as_secs() < 10 {
            std::hint::black_box((0..1000).sum::<u64>());
        }
        assert!(process_cpu() >= before + Duration::from_millis(2));
    }

    #[test]
    fn slots_wait_for_room() {
        let limit = Limit::fixed(2);
        let a = limit.acquire();
        let _b = limit.acquire();
        std::thread::scope(|sc| {
            let waiter = sc.spawn(|| {
                let _c = limit.acquire();
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!waiter.is_finished(), "a third file waits for room");
            drop(a);
            waiter.join().unwrap();
        });
        assert_eq!(limit.peak(), 2);
        assert_eq!(limit.current(), 2);
    }
}
