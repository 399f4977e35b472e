//! An object in memory: for tests of parsers on corrupt bytes, and for inline data. It counts
//! as object storage would: a read is a request and a round trip, a batch
//! ([`RangeRead::read_many`]) one round trip for all its requests, as `ObjectReader` sends them
//! together.

use crate::{check_range, IoError, ObjectMeta, RangeRead, Stats};
use std::sync::atomic::{AtomicU64, Ordering};

/// An in-memory object.
pub struct MemObject {
    url: String,
    data: Vec<u8>,
    meta: ObjectMeta,
    requests: AtomicU64,
    round_trips: AtomicU64,
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
            round_trips: AtomicU64::new(0),
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
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        self.read_one(offset, len)
    }
    fn read_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, IoError> {
        if !ranges.is_empty() {
            self.round_trips.fetch_add(1, Ordering::Relaxed);
        }
        ranges.iter().map(|&(o, l)| self.read_one(o, l)).collect()
    }
    fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            round_trips: self.round_trips.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            ..Stats::default()
        }
    }
}

impl MemObject {
    fn read_one(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        check_range(&self.url, self.meta.size, offset, len)?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(len, Ordering::Relaxed);
        Ok(self.data[offset as usize..(offset + len) as usize].to_vec())
    }
}
