//! Helpers shared by the tests of `tests/` (each is its own test crate).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use vzplan_io::{LinkError, Linker, RangeRead};

/// A linker that opens any local file it is asked for, and remembers which.
#[derive(Default)]
pub struct Opens(pub Mutex<Vec<String>>);

impl Linker for Opens {
    fn open(&self, url: &str) -> Result<Arc<dyn RangeRead>, LinkError> {
        self.0.lock().unwrap().push(url.to_string());
        let path = url.strip_prefix("file://").unwrap();
        Ok(Arc::new(vzplan_io::open_local(path)?))
    }
}
