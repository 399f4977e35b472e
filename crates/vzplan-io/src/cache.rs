//! The block cache in front of every reader: aligned blocks, one speculative first read (a small
//! file whole), batches of ranges fetched together and coalesced, and reads handed out as copies
//! ([`RangeRead::read_at`]) or as views of the buffer a read fetched ([`RangeRead::read_bytes`]).

use crate::{check_range, IoError, ObjectMeta, RangeRead, Stats};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Cache settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheConfig {
    /// Alignment and size of cached blocks.
    pub block_size: u64,
    /// Size of the first read from offset 0 (HDF5 and netCDF headers usually fit).
    pub first_read: u64,
    /// Files up to this size are read whole by the first read: one request instead of a first
    /// read and a few blocks.
    pub whole_file: u64,
    /// Cached bytes above which the cache is emptied (metadata only, so rarely reached).
    pub max_bytes: u64,
    /// Batches ([`RangeRead::read_many`]: a level of a chunk index) read range by range as
    /// asked, past the blocks, after the first read: each node costs one copy of its own bytes
    /// where blocks would round it up to pages it shares with chunk data. For local files only;
    /// on object storage the blocks save requests.
    pub direct_batches: bool,
    /// How far the region read from offset 0 may grow: a batch that asks for blocks past the
    /// first read but below this shows that the metadata runs on, so it reads on from the
    /// first read to twice the furthest of them (within this). Files written with their
    /// metadata first (many variables defined before any data) then cost the round trips a
    /// first read this large would, while files whose metadata fits the first read read no
    /// more. 0: never.
    pub grow_to: u64,
}

impl Default for CacheConfig {
    /// For object storage, where a request costs a round trip and bytes are cheap.
    fn default() -> Self {
        CacheConfig {
            block_size: crate::DEFAULT_BLOCK_SIZE,
            first_read: crate::DEFAULT_FIRST_READ,
            whole_file: 0,
            max_bytes: 256 * 1024 * 1024,
            direct_batches: false,
            grow_to: crate::DEFAULT_GROW_TO,
        }
    }
}

impl CacheConfig {
    /// For local files, where a read costs a system call and a copy of every byte: blocks of a
    /// page or so, and a first read that holds a typical superblock and root object header; a
    /// file of up to 64 KiB in one read (a copy of 64 KiB costs less than three more reads).
    /// Measured on 1,000 small netCDF-4 files (docs/benchmarks.md).
    pub fn local() -> Self {
        CacheConfig {
            block_size: 4 * 1024,
            first_read: 16 * 1024,
            whole_file: 64 * 1024,
            max_bytes: 256 * 1024 * 1024,
            direct_batches: true,
            grow_to: 0,
        }
    }
}

/// Buffers up to this size are shared by [`RangeRead::read_bytes`]; larger ones are copied from.
const SHARE_UP_TO: usize = 1 << 20;

/// A block cache over any [`RangeRead`]: aligned blocks, one speculative first read, and
/// coalescing of adjacent missing blocks into one request.
pub struct CachedReader {
    inner: Arc<dyn RangeRead>,
    cfg: CacheConfig,
    blocks: Mutex<Cache>,
    /// A file of up to [`CacheConfig::whole_file`] bytes, read whole by the first read: every
    /// read is then a slice of it, with no lock, block lookup or block walk, which would be a
    /// large part of a small file's scan.
    whole: OnceLock<bytes::Bytes>,
}

#[derive(Default)]
struct Cache {
    /// Seeded per process (foldhash's `RandomState`): block numbers come from untrusted offsets.
    map: HashMap<u64, Block, foldhash::fast::RandomState>,
    bytes: u64,
    first_done: bool,
    /// The end of the region read from offset 0 (the first read, grown by later batches); 0
    /// until the first read is in.
    grown: u64,
}

/// One cached block: a slice of the buffer its (coalesced) read returned, shared rather than copied.
struct Block {
    buf: bytes::Bytes,
    start: usize,
    end: usize,
}

impl Block {
    fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }
}

impl CachedReader {
    pub fn new(inner: Arc<dyn RangeRead>, cfg: CacheConfig) -> Self {
        CachedReader {
            inner,
            cfg,
            blocks: Mutex::new(Cache::default()),
            whole: OnceLock::new(),
        }
    }

    /// The whole file, when it is small enough to be read whole ([`CacheConfig::whole_file`]):
    /// read by the first call, in one request. `None` for a larger (or empty) file, and when the
    /// whole read came back short (the blocks then read what is there).
    fn whole(&self) -> Result<Option<&bytes::Bytes>, IoError> {
        if let Some(w) = self.whole.get() {
            return Ok(Some(w));
        }
        let size = self.inner.size();
        if size == 0 || size > self.cfg.whole_file {
            return Ok(None);
        }
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if cache.first_done {
            return Ok(self.whole.get());
        }
        cache.first_done = true;
        let data = self.inner.read_many(&[(0, size)])?.into_iter().next();
        match data {
            Some(d) if d.len() as u64 == size => Ok(Some(self.whole.get_or_init(|| d.into()))),
            _ => Ok(None),
        }
    }

    /// `[o, o + l)` of the whole file `w`, checked against the file's size.
    fn slice_of<'w>(&self, w: &'w bytes::Bytes, o: u64, l: u64) -> Result<&'w [u8], IoError> {
        check_range(self.url(), w.len() as u64, o, l)?;
        Ok(&w[o as usize..(o + l) as usize])
    }

    /// Fetches the missing blocks among `wanted` (block numbers), coalescing runs.
    fn fill(&self, cache: &mut Cache, wanted: &[u64]) -> Result<(), IoError> {
        let bs = self.cfg.block_size;
        let size = self.inner.size();
        // Over its budget, the cache starts again before this batch looks for what it has: a
        // block counted as cached here must still be there when the batch is copied out.
        if cache.bytes > self.cfg.max_bytes {
            cache.map.clear();
            cache.bytes = 0;
        }
        let grow = self.growth(cache, wanted);
        let mut missing: Vec<u64> = wanted
            .iter()
            .copied()
            .chain(grow)
            .filter(|b| !cache.map.contains_key(b))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        let mut runs: Vec<(u64, u64)> = Vec::new(); // (first block, count)
        for b in missing {
            match runs.last_mut() {
                Some((f, n)) if *f + *n == b => *n += 1,
                _ => runs.push((b, 1)),
            }
        }
        let ranges: Vec<(u64, u64)> = runs
            .iter()
            .map(|&(f, n)| {
                let start = f * bs;
                let end = ((f + n) * bs).min(size);
                (start, end - start)
            })
            .collect();
        let datas = self.inner.read_many(&ranges)?;
        for ((f, n), data) in runs.into_iter().zip(datas) {
            let buf = bytes::Bytes::from(data);
            for k in 0..n {
                let lo = (k * bs) as usize;
                let hi = (((k + 1) * bs) as usize).min(buf.len());
                if lo >= hi {
                    break;
                }
                cache.bytes += (hi - lo) as u64;
                let block = Block {
                    buf: buf.clone(),
                    start: lo,
                    end: hi,
                };
                cache.map.insert(f + k, block);
            }
        }
        Ok(())
    }

    /// The blocks the region read from offset 0 grows by when `wanted` shows the metadata runs
    /// past it ([`CacheConfig::grow_to`]).
    fn growth(&self, cache: &mut Cache, wanted: &[u64]) -> std::ops::Range<u64> {
        let bs = self.cfg.block_size;
        let limit = self.cfg.grow_to.min(self.inner.size());
        let from = cache.grown;
        if from == 0 || from >= limit {
            return 0..0;
        }
        let furthest = wanted
            .iter()
            .map(|&b| b.saturating_add(1).saturating_mul(bs))
            .filter(|&end| end > from && end <= limit.saturating_add(bs))
            .max();
        let Some(furthest) = furthest else {
            return 0..0;
        };
        let to = furthest.saturating_mul(2).min(limit);
        cache.grown = to;
        from.div_ceil(bs)..to.div_ceil(bs)
    }

    /// Checks `ranges` and fetches the blocks they need that are not cached (with the first
    /// read, the first time), in one batch.
    fn ensure(&self, cache: &mut Cache, ranges: &[(u64, u64)]) -> Result<(), IoError> {
        let size = self.inner.size();
        for &(o, l) in ranges {
            check_range(self.url(), size, o, l)?;
        }
        // Most reads of a scan are cache hits: those allocate nothing here.
        let cached =
            |&(o, l): &(u64, u64)| self.blocks_of(o, l).all(|b| cache.map.contains_key(&b));
        if cache.first_done && ranges.iter().all(cached) {
            return Ok(());
        }
        let mut wanted: Vec<u64> = Vec::new();
        let first = !cache.first_done;
        if first {
            cache.first_done = true;
            // A file read whole never comes here ([`CachedReader::whole`]) unless that read
            // came back short.
            wanted.extend(self.blocks_of(0, self.cfg.first_read.min(size)));
        }
        // Overlapping ranges are merged first, so that the block list stays within the file's
        // blocks however many ranges (from untrusted bytes) name the same bytes.
        let mut spans: Vec<(u64, u64)> = ranges
            .iter()
            .filter(|r| r.1 > 0)
            .map(|&(o, l)| (o, o + l))
            .collect();
        spans.sort_unstable();
        let mut end = 0;
        for (s, e) in spans {
            let s = s.max(end);
            if s < e {
                wanted.extend(self.blocks_of(s, e - s));
                end = e;
            }
        }
        self.fill(cache, &wanted)?;
        if first {
            let blocks = self.blocks_of(0, self.cfg.first_read.min(size));
            cache.grown = blocks.end.saturating_mul(self.cfg.block_size).min(size);
        }
        Ok(())
    }

    /// The bytes `[o, o + l)` from cached blocks (fetched by [`CachedReader::ensure`]).
    fn copy_out(&self, cache: &Cache, o: u64, l: u64) -> Result<Vec<u8>, IoError> {
        let bs = self.cfg.block_size;
        let mut buf = Vec::with_capacity(l as usize);
        for b in self.blocks_of(o, l) {
            let block = cache.map.get(&b).ok_or_else(|| IoError::PastEnd {
                url: self.url().to_string(),
                offset: o,
                len: l,
                size: self.inner.size(),
            })?;
            let block = block.bytes();
            let bstart = b * bs;
            let lo = o.max(bstart) - bstart;
            let hi = (o + l).min(bstart + block.len() as u64) - bstart;
            buf.extend_from_slice(&block[lo as usize..hi as usize]);
        }
        Ok(buf)
    }

    /// The bytes `[o, o + l)` as a slice of the buffer that holds them when one read fetched
    /// them all (no copy); a copy otherwise, or when that buffer is over [`SHARE_UP_TO`] (a
    /// small slice must not keep a large buffer alive after the cache lets it go).
    fn share_out(&self, cache: &Cache, o: u64, l: u64) -> Result<bytes::Bytes, IoError> {
        let bs = self.cfg.block_size;
        let blocks = self.blocks_of(o, l);
        let first = cache.map.get(&blocks.start);
        let one_buffer = first.is_some_and(|f| {
            f.buf.len() <= SHARE_UP_TO
                && blocks.clone().all(|b| {
                    cache.map.get(&b).is_some_and(|x| {
                        x.buf.as_ptr() == f.buf.as_ptr() && x.buf.len() == f.buf.len()
                    })
                })
        });
        match first {
            Some(f) if one_buffer => {
                // The buffer starts at file offset `blocks.start * bs - f.start`.
                let lo = (o - blocks.start * bs) as usize + f.start;
                match f.buf.get(lo..lo + l as usize) {
                    Some(_) => Ok(f.buf.slice(lo..lo + l as usize)),
                    None => self.copy_out(cache, o, l).map(bytes::Bytes::from),
                }
            }
            _ => self.copy_out(cache, o, l).map(bytes::Bytes::from),
        }
    }

    /// [`CacheConfig::direct_batches`]: ranges the cache holds copied from it, the others read
    /// as asked (those at most a block apart in one read, so that many small neighbouring
    /// ranges stay a few reads), in one batch, and not cached.
    fn read_direct(&self, cache: &Cache, ranges: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, IoError> {
        let size = self.inner.size();
        for &(o, l) in ranges {
            check_range(self.url(), size, o, l)?;
        }
        let cached = |o: u64, l: u64| self.blocks_of(o, l).all(|b| cache.map.contains_key(&b));
        let mut missing: Vec<usize> = (0..ranges.len())
            .filter(|&i| !cached(ranges[i].0, ranges[i].1))
            .collect();
        missing.sort_unstable_by_key(|&i| ranges[i].0);
        // Spans (start, end) of the missing ranges merged across gaps under a block, and the
        // span each range is in.
        let mut spans: Vec<(u64, u64)> = Vec::new();
        let mut span_of = vec![usize::MAX; ranges.len()];
        for &i in &missing {
            let (o, l) = ranges[i];
            match spans.last_mut() {
                Some((_, end)) if o <= end.saturating_add(self.cfg.block_size) => {
                    *end = (*end).max(o + l)
                }
                _ => spans.push((o, o + l)),
            }
            span_of[i] = spans.len() - 1;
        }
        let asks: Vec<(u64, u64)> = spans.iter().map(|&(s, e)| (s, e - s)).collect();
        let mut read = self.inner.read_many(&asks)?;
        let mut shared = vec![0u32; spans.len()];
        for &i in &missing {
            shared[span_of[i]] += 1;
        }
        let past_end = |o, l| IoError::PastEnd {
            url: self.url().to_string(),
            offset: o,
            len: l,
            size,
        };
        (0..ranges.len())
            .map(|i| {
                let (o, l) = ranges[i];
                let Some(&(s, _)) = spans.get(span_of[i]) else {
                    return self.copy_out(cache, o, l);
                };
                let lo = (o - s) as usize;
                let buf = read.get_mut(span_of[i]).ok_or_else(|| past_end(o, l))?;
                if shared[span_of[i]] == 1 && lo == 0 && buf.len() as u64 == l {
                    return Ok(std::mem::take(buf)); // a span of its own: no copy
                }
                buf.get(lo..lo + l as usize)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| past_end(o, l))
            })
            .collect()
    }

    /// The blocks `[offset, offset + len)` touches: none for an empty range (which needs no
    /// read, wherever it starts).
    fn blocks_of(&self, offset: u64, len: u64) -> std::ops::Range<u64> {
        let bs = self.cfg.block_size;
        let start = offset / bs;
        match len {
            0 => start..start,
            _ => start..(offset + len).div_ceil(bs),
        }
    }
}

impl RangeRead for CachedReader {
    fn url(&self) -> &str {
        self.inner.url()
    }
    fn meta(&self) -> &ObjectMeta {
        self.inner.meta()
    }
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        if let Some(w) = self.whole()? {
            return self.slice_of(w, offset, len).map(<[u8]>::to_vec);
        }
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        self.ensure(&mut cache, &[(offset, len)])?;
        self.copy_out(&cache, offset, len)
    }
    fn read_bytes(&self, offset: u64, len: u64) -> Result<bytes::Bytes, IoError> {
        if let Some(w) = self.whole()? {
            return Ok(w.slice_ref(self.slice_of(w, offset, len)?));
        }
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        self.ensure(&mut cache, &[(offset, len)])?;
        self.share_out(&cache, offset, len)
    }
    fn read_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, IoError> {
        if let Some(w) = self.whole()? {
            return ranges
                .iter()
                .map(|&(o, l)| self.slice_of(w, o, l).map(<[u8]>::to_vec))
                .collect();
        }
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if self.cfg.direct_batches && cache.first_done {
            return self.read_direct(&cache, ranges);
        }
        self.ensure(&mut cache, ranges)?;
        ranges
            .iter()
            .map(|&(o, l)| self.copy_out(&cache, o, l))
            .collect()
    }
    fn read_many_bytes(&self, ranges: &[(u64, u64)]) -> Result<Vec<bytes::Bytes>, IoError> {
        if let Some(w) = self.whole()? {
            return ranges
                .iter()
                .map(|&(o, l)| Ok(w.slice_ref(self.slice_of(w, o, l)?)))
                .collect();
        }
        Ok(crate::into_bytes(self.read_many(ranges)?))
    }
    fn prefetches(&self) -> bool {
        matches!(self.whole(), Ok(None))
    }
    fn prefetch(&self, ranges: &[(u64, u64)]) {
        // A hint: an error is left to the read that needs the range.
        if !matches!(self.whole(), Ok(None)) {
            return;
        }
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.ensure(&mut cache, ranges);
    }
    fn stats(&self) -> Stats {
        self.inner.stats()
    }
}
