//! Nothing but dependencies: see this crate's `Cargo.toml` for why it exists.
