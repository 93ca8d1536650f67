//! The names of the definition modes (`kind`, `caching`, `source`, `paths`, `replies`) and
//! their decoding through [`named`], so an error lists the valid names whatever was written.

use plateau_model::config::named::{self, Named};
use serde::{Deserialize, Deserializer};

use super::{Caching, Kind, Paths, Replies, Source};

impl Named for Kind {
    const ALL: &'static [Kind] = &[
        Kind::Identical,
        Kind::Diverse,
        Kind::SharedPrefix,
        Kind::MultiTurn,
        Kind::SingleTurn,
        Kind::Custom,
        Kind::Trace,
        Kind::Agent,
    ];
    const NAMES: &'static [&'static str] = &[
        "identical",
        "diverse",
        "shared_prefix",
        "multi_turn",
        "single_turn",
        "custom",
        "trace",
        "agent",
    ];
}

impl Named for Caching {
    const ALL: &'static [Caching] = &[
        Caching::Maximum,
        Caching::SystemPrompt,
        Caching::History,
        Caching::Partial,
        Caching::None,
        Caching::Unknown,
    ];
    const NAMES: &'static [&'static str] = &[
        "maximum",
        "system_prompt",
        "history",
        "partial",
        "none",
        "unknown",
    ];
}

impl Named for Source {
    const ALL: &'static [Source] = &[
        Source::BuiltIn,
        Source::Longbench,
        Source::Oasst2,
        Source::Sharegpt,
        Source::Jsonl,
        Source::Trace,
    ];
    const NAMES: &'static [&'static str] = &[
        "built_in",
        "longbench",
        "oasst2",
        "sharegpt",
        "jsonl",
        "trace",
    ];
}

impl Named for Paths {
    const ALL: &'static [Paths] = &[Paths::Rank0, Paths::All];
    const NAMES: &'static [&'static str] = &["rank0", "all"];
}

impl Named for Replies {
    const ALL: &'static [Replies] = &[Replies::Server, Replies::Dataset];
    const NAMES: &'static [&'static str] = &["server", "dataset"];
}

macro_rules! deserialize_by_name {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                named::deserialize(d)
            }
        }
    )*};
}

deserialize_by_name!(Kind, Caching, Source, Paths, Replies);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn check<T: Named + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>() {
        assert_eq!(T::ALL.len(), T::NAMES.len());
        for (value, name) in T::ALL.iter().zip(T::NAMES) {
            assert_eq!(serde_json::to_value(value).unwrap(), *name);
            assert_eq!(serde_json::from_value::<T>((*name).into()).unwrap(), *value);
        }
    }

    #[test]
    fn names_match_serialization() {
        check::<Kind>();
        check::<Caching>();
        check::<Source>();
        check::<Paths>();
        check::<Replies>();
    }

    #[test]
    fn a_value_of_the_wrong_type_lists_the_names() {
        let err = serde_json::from_value::<Paths>(serde_json::json!(3)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: integer `3`, expected `rank0` or `all`"
        );
        let err = serde_json::from_value::<Source>(serde_json::json!(null)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: null, expected one of `built_in`, `longbench`, `oasst2`, `sharegpt`, `jsonl`, `trace`"
        );
    }
}
