//! An object in memory: for tests of parsers on corrupt bytes, and for inline data.

use crate::{check_range, IoError, ObjectMeta, RangeRead, Stats};
use std::sync::atomic::{AtomicU64, Ordering};

/// An in-memory object.
pub struct MemObject {
    url: String,
    data: Vec<u8>,
    meta: ObjectMeta,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl MemObject {
    pub fn new(url: impl Into<String>, data: Vec<u8>) -> Self {
        let meta = ObjectMeta {
            size: data.len() as u64,
            ..Default::default()
        };
        MemObject {
            url: url.into(),
            data,
            meta,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }
}

impl RangeRead for MemObject {
    fn url(&self) -> &str {
        &self.url
    }
    fn meta(&self) -> &ObjectMeta {
        &self.meta
    }
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        check_range(&self.url, self.meta.size, offset, len)?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(len, Ordering::Relaxed);
        Ok(self.data[offset as usize..(offset + len) as usize].to_vec())
    }
    fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            // Each read waits for the one before: one round trip each.
            round_trips: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            ..Stats::default()
        }
    }
}
