//! Prints the layout of each TIFF given on the command line as one JSON line.
//! `cargo run -p vzplan-tiff --example dump -- file.tif …`
fn main() {
    let mut status = 0;
    for path in std::env::args().skip(1) {
        let result = vzplan_io::open_local(&path)
            .map_err(vzplan_tiff::ReadError::from)
            .and_then(|r| vzplan_tiff::read_layout(&r));
        match result {
            Ok(layout) => match serde_json::to_string(&layout) {
                Ok(s) => println!("{s}"),
                Err(e) => {
                    eprintln!("{path}: {e}");
                    status = 1;
                }
            },
            Err(e) => {
                eprintln!("{e}");
                status = 1;
            }
        }
    }
    std::process::exit(status);
}
