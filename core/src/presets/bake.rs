//! The embedded TOML presets as Rust: what `core/src/presets/baked.rs` is
//! (`tests/tests/suite/data.rs` checks the file against it and rewrites it
//! with `UPDATE_BAKED=1`). The web page builds without the `toml` feature
//! and takes its presets from that file as values, so it links neither a
//! TOML reader nor a typed deserializer per preset type.
//!
//! Prose for whoever edits or audits the files, which no code reads, is
//! left out of the values: a model's `notes`, the `source` of a GPU or a
//! model, a calibration's `description`, `command`, `fitted_on` and `runs`
//! (required ones are left empty). The page shows none of them; the CLI,
//! which reads the TOML files, has them all.

use super::*;
use crate::rank::Prices;
use crate::scenario::{CalibrationFile, ScenarioFile};
use databake::{quote, Bake, CrateEnv, TokenStream};

/// A preset as the page has it: its prose left out.
pub trait WithoutProse: PresetFile + Bake {
    /// The path of its type, as baked.rs names it.
    fn type_path() -> TokenStream;
    fn without_prose(self) -> Self;
}

impl WithoutProse for Gpu {
    fn type_path() -> TokenStream {
        quote!(crate::gpu::Gpu)
    }
    fn without_prose(mut self) -> Gpu {
        self.source.clear();
        self
    }
}

impl WithoutProse for ModelFile {
    fn type_path() -> TokenStream {
        quote!(crate::presets::ModelFile)
    }
    fn without_prose(mut self) -> ModelFile {
        self.source.clear();
        self.notes = None;
        self
    }
}

impl WithoutProse for ScenarioFile {
    fn type_path() -> TokenStream {
        quote!(crate::scenario::ScenarioFile)
    }
    fn without_prose(self) -> ScenarioFile {
        self
    }
}

impl WithoutProse for CalibrationFile {
    fn type_path() -> TokenStream {
        quote!(crate::scenario::CalibrationFile)
    }
    fn without_prose(mut self) -> CalibrationFile {
        self.description.clear();
        self.command.clear();
        self.fitted_on.clear();
        self.runs.clear();
        self
    }
}

impl WithoutProse for Prices {
    fn type_path() -> TokenStream {
        quote!(crate::rank::Prices)
    }
    fn without_prose(self) -> Prices {
        self
    }
}

/// The source of `core/src/presets/baked.rs` (one line; the test formats it
/// with rustfmt): a function per kind of preset, its id to its value.
pub fn baked_source() -> Result<String> {
    let gpus = kind::<Gpu>()?;
    let models = kind::<ModelFile>()?;
    let scenarios = kind::<ScenarioFile>()?;
    let calibrations = kind::<CalibrationFile>()?;
    let prices = kind::<Prices>()?;
    let code = quote! {
        extern crate alloc;
        pub(super) fn gpu(id: &str) -> #gpus
        pub(super) fn model(id: &str) -> #models
        pub(super) fn scenario(id: &str) -> #scenarios
        pub(super) fn calibration(id: &str) -> #calibrations
        pub(super) fn prices(id: &str) -> #prices
    };
    Ok(format!(
        "//! The embedded TOML presets as values, for the web page: written by\n\
         //! `presets::baked_source` (core/src/presets/bake.rs) from data/; do not\n\
         //! edit. After changing a preset: UPDATE_BAKED=1 cargo test -p\n\
         //! decodecalc-tests --test suite data::baked\n\
         // @generated\n\n\
         /// `presets::DATA_TOML_HASH` of the data/ files this was written from\n\
         /// (checked by the page's build, which alone reads this file's values).\n\
         #[cfg_attr(feature = \"toml\", allow(dead_code))]\n\
         pub(super) const FROM_DATA_TOML_HASH: u64 = {:#x};\n\n{code}\n",
        super::DATA_TOML_HASH
    ))
}

/// An embedded preset as the page has it: parsed as the CLI parses it (an
/// error names the file), its prose left out.
pub fn page_value<T: WithoutProse>(f: &Embedded) -> Result<T> {
    Ok(T::parse(f.path, f.text)?.without_prose())
}

/// The return type and body of one kind's function: `Option<T>`, a match
/// of each preset's id to its value.
fn kind<T: WithoutProse>() -> Result<TokenStream> {
    let env = CrateEnv::default();
    let mut arms = Vec::new();
    for f in FILES.iter().filter(|f| f.kind == T::KIND) {
        let (id, value) = (f.id, page_value::<T>(f)?.bake(&env));
        arms.push(quote!(#id => #value,));
    }
    let ty = T::type_path();
    Ok(quote! {
        Option<#ty> {
            Some(match id {
                #(#arms)*
                _ => return None,
            })
        }
    })
}
