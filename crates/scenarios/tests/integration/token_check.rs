//! The `/tokenize` check against the simulator, whose tokenizer is cl100k_base and whose
//! chat template is known exactly (`<|im_start|> role \n content <|im_end|>` per message,
//! then `<|im_start|> assistant \n`): with plateau's cl100k_base the server counts every
//! scenario's texts exactly as plateau does, and its template adds 4 tokens per message
//! plus 3 ("user" and "system" are one token each).

use plateau_core::plan::BaseUrl;
use plateau_core::token_check::{self, Server};
use plateau_core::workload::WorkloadFactory;
use plateau_http::Client;
use plateau_scenarios::Catalog;
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::{cell, config, datasets, plan, tokenizer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulator_counts_every_scenario_as_plateau_and_its_template_exactly() {
    let sim = plateau_sim::Server::start("127.0.0.1:0".parse().unwrap(), SimConfig::default())
        .await
        .unwrap();
    let url = format!("http://{}/v1", sim.addr());
    let scenarios = ["A1", "A2", "B1", "B2", "C", "D"];
    let data = datasets("token-check");
    let cfg = config(
        &scenarios,
        json!({
            "endpoints": [{"name": "sim", "engine": "sim", "url": url}],
            "datasets_dir": data.path(),
        }),
    );
    let (catalog, plan) = (Catalog::load(&cfg, tokenizer()).unwrap(), plan(&cfg));
    let client = Client::new(2).unwrap();
    let base = BaseUrl::parse(&url).unwrap();
    let server = Server {
        client: &client,
        endpoint: &plan.endpoints[0],
        base: &base,
        model: "m",
    };
    for scenario in scenarios {
        let workload = catalog.workload(&plan, &cell(scenario, 4)).unwrap();
        let check = token_check::run(&server, workload.as_ref(), tokenizer().as_ref())
            .await
            .expect("the simulator has /tokenize");
        eprintln!("{scenario}: {check:?}");
        assert_eq!(check.error, None, "{scenario}");
        // A1 and A2 send one prompt to every slot: it is asked once.
        let prompts = if scenario.starts_with('A') { 1 } else { 8 };
        assert_eq!(check.prompts, prompts, "{scenario}");
        assert!(check.client_tokens_mean > 0.0, "{scenario}");
        assert_eq!(
            check.server_tokens_mean,
            Some(check.client_tokens_mean),
            "{scenario}"
        );
        assert_eq!(check.rel_diff, Some(0.0), "{scenario}");
        // C sends its shared system prompt beside the user's message.
        let template = if scenario == "C" { 11.0 } else { 7.0 };
        assert_eq!(check.template_tokens_mean(), Some(template), "{scenario}");
        assert!(!check.mismatched());
    }
    sim.shutdown().await;
}
