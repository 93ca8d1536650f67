//! `plateau sim`: serve the simulated engine until Ctrl-C.

use std::process::ExitCode;

use anyhow::anyhow;
use plateau_sim::{PROFILE_NAMES, Server, SimConfig};

use crate::args::SimArgs;
use crate::exit::{BadInput, Failure};

/// Serves until Ctrl-C.
pub async fn serve(args: SimArgs) -> Result<ExitCode, Failure> {
    let config = match (&args.profile, &args.config) {
        (Some(name), _) => SimConfig::from_profile(name).bad_input()?,
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::bad_input(anyhow!("{}: {e}", path.display())))?;
            SimConfig::from_json(&text)
                .map_err(|e| Failure::bad_input(anyhow!("{}: {e}", path.display())))?
        }
        (None, None) => SimConfig::default(),
    };
    // Each client connection is a socket here; a loaded benchmark opens one per slot.
    if let Err(e) = rlimit::increase_nofile_limit(65_536) {
        tracing::warn!("could not raise the open-file limit: {e}");
    }
    let server = Server::start((args.host, args.port).into(), config)
        .await
        .bad_input()?;
    // The address goes to stdout so scripts (and `cargo xtask bench`) can read it.
    println!("plateau sim listening on http://{}/v1", server.addr());
    tracing::info!("presets: {}; Ctrl-C to stop", PROFILE_NAMES.join(", "));
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    Ok(ExitCode::SUCCESS)
}
