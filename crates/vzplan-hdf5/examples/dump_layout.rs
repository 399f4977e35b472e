//! Prints the layout of an HDF5 / netCDF-4 file as JSON: `cargo run --example dump_layout FILE`.
fn main() {
    for p in std::env::args().skip(1) {
        let r = vzplan_io::open_local(&p).expect("open");
        match vzplan_hdf5::read_layout(&r) {
            Ok(l) => println!("{}", serde_json::to_string_pretty(&l).expect("json")),
            Err(e) => eprintln!("{e}"),
        }
    }
}
