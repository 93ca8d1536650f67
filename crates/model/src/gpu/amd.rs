//! `amd-smi metric -p -E -u -m --json` (ROCm/amdsmi `amdsmi_cli/amdsmi_commands.py`
//! `metric_gpu`) into [`GpuReading`]s. Each GPU is an object with its index (`gpu`) and
//! `{"value": V, "unit": U}` leaves, or `"N/A"` where the GPU has no value (absent here).
//! amd-smi 24.x prints a list of GPUs, newer releases `{"gpu_data": [...]}`; both are read.
//!
//! | path | unit | reading |
//! |---|---|---|
//! | `power.socket_power` | W | `power_w` |
//! | `energy.total_energy_consumption` | J (a counter) | `energy_j` |
//! | `usage.gfx_activity` | % | `util_pct` |
//! | `mem_usage.used_vram` | "MB", in fact MiB (bytes // 2^20) | `memory_used_mib` |

use serde_json::Value;

use super::GpuReading;

/// The arguments plateau runs `amd-smi` with (one sample per run).
pub const ARGS: [&str; 6] = ["metric", "-p", "-E", "-u", "-m", "--json"];

/// The GPUs of one `amd-smi metric --json` output; an error naming what was expected when
/// the text is not that output or a unit is not the one plateau reads.
pub fn readings(text: &str) -> Result<Vec<GpuReading>, String> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| format!("amd-smi's output is not JSON: {e}"))?;
    let gpus = match &doc {
        Value::Array(list) => list,
        Value::Object(o) => match o.get("gpu_data") {
            Some(Value::Array(list)) => list,
            _ => return Err("amd-smi's output has no `gpu_data` list".into()),
        },
        _ => return Err("amd-smi's output is neither a list of GPUs nor `gpu_data`".into()),
    };
    gpus.iter().map(reading).collect()
}

/// One GPU's object.
fn reading(g: &Value) -> Result<GpuReading, String> {
    let index = g
        .get("gpu")
        .and_then(Value::as_u64)
        .ok_or("an amd-smi GPU without its index (`gpu`)")?;
    let mut r = GpuReading::new(format!("/{index}"));
    r.power_w = leaf(g, "power", "socket_power", &[("W", 1.0), ("mW", 1e-3)])?;
    r.energy_j = leaf(
        g,
        "energy",
        "total_energy_consumption",
        &[("J", 1.0), ("mJ", 1e-3), ("uJ", 1e-6)],
    )?;
    r.util_pct = leaf(g, "usage", "gfx_activity", &[("%", 1.0)])?;
    // amd-smi divides bytes by 2^20 and calls it MB.
    r.memory_used_mib = leaf(g, "mem_usage", "used_vram", &[("MB", 1.0), ("MiB", 1.0)])?;
    Ok(r)
}

/// `g[group][name]` scaled by its unit's factor; `None` for `"N/A"` or a missing leaf.
fn leaf(g: &Value, group: &str, name: &str, units: &[(&str, f64)]) -> Result<Option<f64>, String> {
    let Some(v) = g.get(group).and_then(|x| x.get(name)) else {
        return Ok(None);
    };
    let Some(value) = v
        .get("value")
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
    else {
        return Ok(None);
    };
    let unit = v.get("unit").and_then(Value::as_str).unwrap_or("no unit");
    let Some((_, factor)) = units.iter().find(|(u, _)| *u == unit) else {
        let want: Vec<&str> = units.iter().map(|(u, _)| *u).collect();
        return Err(format!(
            "amd-smi's `{group}.{name}` is in `{unit}`, expected `{}`",
            want.join("` or `")
        ));
    };
    Ok(Some(value * factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two MI300X as amd-smi 24.5 prints them (a list), the second without energy or
    /// activity.
    const LIST: &str = include_str!("fixtures/amd-smi-list.json");
    /// The same GPUs as newer amd-smi prints them (`{"gpu_data": [...]}`).
    const GPU_DATA: &str = include_str!("fixtures/amd-smi-gpu-data.json");

    #[test]
    fn both_forms_give_watts_joules_percent_and_mib_and_na_is_absent() {
        for text in [LIST, GPU_DATA] {
            let r = readings(text).expect("amd-smi output");
            assert_eq!(r.len(), 2);
            assert_eq!(r[0].gpu, "/0");
            assert_eq!(r[0].power_w, Some(542.0));
            assert_eq!(r[0].energy_j, Some(1_283_946.721));
            assert_eq!(r[0].util_pct, Some(97.0));
            assert_eq!(r[0].memory_used_mib, Some(121_344.0));
            assert_eq!(r[1].power_w, Some(498.0));
            assert_eq!(r[1].energy_j, None, "\"energy\": \"N/A\"");
            assert_eq!(r[1].util_pct, None, "\"gfx_activity\": \"N/A\"");
        }
    }

    #[test]
    fn a_unit_plateau_does_not_read_or_not_amd_smi_is_an_error() {
        let mw = r#"[{"gpu": 0, "power": {"socket_power": {"value": 5, "unit": "kW"}}}]"#;
        assert_eq!(
            readings(mw).unwrap_err(),
            "amd-smi's `power.socket_power` is in `kW`, expected `W` or `mW`"
        );
        assert!(
            readings(r#"{"gpus": []}"#)
                .unwrap_err()
                .contains("gpu_data")
        );
        assert!(readings("not json").unwrap_err().contains("not JSON"));
        assert!(
            readings(r#"[{"power": {}}]"#)
                .unwrap_err()
                .contains("index")
        );
    }

    #[test]
    fn energy_over_an_amd_smi_sequence_is_the_hand_computation() {
        // Three reads 1 s apart of the list fixture: GPU 1 has no energy counter, so the
        // energy is the power integral, (542 + 498) W x 2 s = 2080 J.
        let samples: Vec<super::super::GpuSample> = (0..3u64)
            .map(|i| super::super::GpuSample {
                t_us: i * 1_000_000,
                gpus: readings(LIST).expect("amd-smi output"),
            })
            .collect();
        let span = crate::scrape::summary::Span {
            from_us: 0,
            to_us: 2_000_000,
        };
        let p = super::super::summary::phase(&samples, span);
        assert_eq!(p.energy_j, Some(2080.0));
        assert_eq!(
            p.energy_source,
            Some(super::super::EnergySource::PowerIntegral)
        );
        assert_eq!(
            p.memory_used_mib.map(|g| g.mean),
            Some(121_344.0 + 118_002.0)
        );
    }
}
