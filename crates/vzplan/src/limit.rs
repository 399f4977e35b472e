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

use std::sync::{Condvar, Mutex};

/// Files in flight when a scan of object storage starts.
pub const START: usize = 32;
/// The most files in flight on object storage.
pub const MAX: usize = 256;
/// The fewest files in flight after backing off.
pub const MIN: usize = 8;

/// A limit on files in flight, fixed or adaptive.
#[derive(Debug)]
pub struct Limit {
    state: Mutex<State>,
    freed: Condvar,
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
            }),
            freed: Condvar::new(),
            adaptive,
        }
    }

    /// The threads a scan needs: the most files that may ever be in flight.
    pub fn threads(&self) -> usize {
        if self.adaptive {
            MAX
        } else {
            self.state.lock().map_or(1, |s| s.limit)
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
            s.adapt(throttled_now);
        }
        let grew = s.limit > before;
        drop(s);
        if grew {
            self.freed.notify_all();
        } else {
            self.freed.notify_one();
        }
    }
}

impl State {
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
        assert_eq!(limit.threads(), 2);
    }
}
