//! Errors of the HDF5 reader. The public entry point adds the file's URL to every message.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Io(#[from] vzplan_io::IoError),
    #[error("not an HDF5 file (no signature at 0, 512, 1024, …)")]
    NotHdf5,
    #[error("truncated {what}: needs {need} bytes, has {have}")]
    Truncated {
        what: &'static str,
        need: usize,
        have: usize,
    },
    #[error("malformed: {0}")]
    Malformed(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl Error {
    pub fn malformed(s: impl Into<String>) -> Self {
        Error::Malformed(s.into())
    }
    pub fn unsupported(s: impl Into<String>) -> Self {
        Error::Unsupported(s.into())
    }
}
