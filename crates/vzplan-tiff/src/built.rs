//! What building one image (IFD) gives: the image, or why not — the whole file is bad, or only
//! this image cannot be referenced (a problem of a kind, maybe with GDAL's rewrite).

use crate::ReadError;
use vzplan_core::ProblemKind;

/// Why one image (IFD) is not built.
#[derive(Debug)]
pub(crate) enum NotBuilt {
    /// The file is truncated or corrupt: the whole file is left out.
    File(ReadError),
    /// This image cannot be referenced exactly: an `ArrayProblem` of this kind.
    Problem(ProblemKind, String),
    /// As `Problem`, and GDAL rewrites the file into one that can be (tool and options, and the
    /// new file's tag; the planner adds the file and the output name).
    Rewrite {
        kind: ProblemKind,
        reason: String,
        rewrite: (&'static str, &'static str),
    },
}

impl From<ReadError> for NotBuilt {
    fn from(e: ReadError) -> Self {
        NotBuilt::File(e)
    }
}

/// A per-IFD result.
pub(crate) type Built<T> = Result<T, NotBuilt>;

/// Returns a problem of a kind (default: storage) from a [`Built`] function.
macro_rules! problem {
    ($kind:ident: $($arg:tt)*) => {
        return Err($crate::built::NotBuilt::Problem(
            vzplan_core::ProblemKind::$kind,
            format!($($arg)*),
        ))
    };
    ($($arg:tt)*) => {
        return Err($crate::built::NotBuilt::Problem(
            vzplan_core::ProblemKind::Storage,
            format!($($arg)*),
        ))
    };
}

pub(crate) use problem;
