//! The integration tests, one binary: each module was its own `tests/*.rs` file, and each
//! such file is another full link of the crate (STYLE.md, "Tests build once"). Shared helpers
//! live in `common`; fixtures stay under `tests/fixtures/`, insta snapshots under
//! `tests/it/snapshots/`. Tests run as threads of one process: none may set a process-wide
//! environment variable or change the current directory; pass them to child processes.

mod common;

mod cache;
mod cache_packs;
mod cache_partial;
mod check;
mod cli;
mod e2e_tmux;
mod explore;
mod extensions;
mod fixtures_real;
mod fuzz_corpus;
mod history;
mod hostile;
mod hostile_caps;
mod hostile_graph;
mod hostile_history;
mod hostile_nesting;
mod hostile_renames;
mod layers;
mod model;
mod needs;
mod not_judged;
mod options;
mod pairing_real;
mod parallel;
mod policy;
mod properties;
mod prove;
mod rule_fixtures;
mod rules;
mod rules_enum_retyped;
mod stored_changes;
mod stored_summaries;
mod summaries;
mod transitive;
mod ui;
