//! Scenarios: a model, a GPU, `vllm serve` flags and harness settings, and the
//! boundary to the outside world. Core never reads a file itself: a caller
//! hands it a [`World`] that can (the CLI) or cannot (the web page).
//!
//! One concern a file: [`world`] (the boundary: files and presets), [`file`]
//! (scenario files and matching a launch line to one), [`calibration`]
//! (calibration files and the error bands they carry), [`request`] (what the
//! user said, resolved into a [`Plan`]) and [`capacity`] (a plan's memory and
//! allocator figures).

use crate::allocator::{admit, KvGroup, KvLayout, KvPool};
use crate::command::{parse_vllm_command, VllmCommand};
use crate::engine::{flag, EngineArgs, EngineSettings, Harness, HarnessSettings};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::memory::NonKvEstimate;
use crate::parse;
use crate::presets::{self, Kind, LoadedModel, ModelFile, PresetFile};
use crate::quant::WeightQuant;
use crate::timing::TimingParams;
use serde::{Deserialize, Serialize};

mod calibration;
mod capacity;
mod file;
mod request;
mod world;

pub use calibration::*;
pub use capacity::*;
pub use file::*;
pub use request::*;
pub use world::*;
