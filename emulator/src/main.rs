//! `geocache-emulator` binary: flags in, server out (see `geocache_emulator::cli::config`), or one
//! of the owner's commands (`geocache_emulator::cli::commands`).

use clap::Parser;
use geocache_emulator::cli::config::Config;
use std::process::ExitCode;

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
