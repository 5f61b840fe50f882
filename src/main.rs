//! protolapse binary: parse the command line, run it, report errors.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used)]

mod bench;
mod cli;
mod commands;

// The allocator is a third of a cold load's time with the system one.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = cli::parse();
    match cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!(
                "error: {}",
                protolapse::sanitize::message(&format!("{e:#}"))
            );
            std::process::exit(2);
        }
    }
}
