//! `cargo fuzz run engine`: arbitrary pairs of .proto texts through compile, diff and every
//! report format (the harness is `fuzz/engine.rs`, shared with the corpus test).
#![no_main]

#[path = "../engine.rs"]
mod engine;

libfuzzer_sys::fuzz_target!(|data: &[u8]| engine::exercise(data));
