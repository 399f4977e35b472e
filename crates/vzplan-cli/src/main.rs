//! `vzplan`: virtual Zarr datasets from piles of netCDF, HDF5 and TIFF files. The program is
//! [`vzplan_cli::run`]; this binary adds its allocator.

mod alloc;

/// mimalloc, reached through its plain entry points ([`alloc`]).
#[global_allocator]
static GLOBAL: alloc::MiMalloc = alloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(vzplan_cli::run(std::env::args_os()))
}
