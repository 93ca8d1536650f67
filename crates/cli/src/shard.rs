//! `plateau run --shard i/K --shard-by cells|load`: this runner's place, its index from
//! the flag or from the Indexed Job's JOB_COMPLETION_INDEX.

use plateau_model::shard::{INDEX_ENV, Shard, ShardError};

use crate::args::RunArgs;

/// This runner's shard, when `--shard` is given.
pub fn of(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Shard>, ShardError> {
    let Some(given) = &args.shard else {
        return Ok(None);
    };
    let index = env(INDEX_ENV);
    Shard::parse(given, args.shard_by.into(), index.as_deref()).map(Some)
}
