//! `geocache-emulator` binary: flags in, server out (see `geocache_emulator::cli::config`), or one
//! of the owner's commands (`geocache_emulator::cli::commands`).

use clap::Parser;
use geocache_emulator::cli::config::Config;
use std::process::ExitCode;

// A panicking request must cost only its own connection, which needs panics to unwind; the
// workspace's `release` profile (the wasm's) aborts, so it would take the whole server down.
#[cfg(panic = "abort")]
compile_error!(
    "geocache-emulator must unwind on panic: build it with `--profile emulator` (or the dev \
     profile), not `--release`"
);

#[tokio::main]
async fn main() -> ExitCode {
    let mut config = Config::parse();
    if let Some(command) = config.command.take() {
        return match command.run().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("geocache-emulator: {error}");
                ExitCode::FAILURE
            }
        };
    }
    match geocache_emulator::serve(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("geocache-emulator: {error}");
            ExitCode::FAILURE
        }
    }
}
