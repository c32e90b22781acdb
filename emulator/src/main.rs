//! `geocache-emulator` binary: flags in, server out (see `geocache_emulator::cli::config`).

use clap::Parser;
use geocache_emulator::cli::config::Config;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let config = Config::parse();
    match geocache_emulator::serve(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("geocache-emulator: {error}");
            ExitCode::FAILURE
        }
    }
}
