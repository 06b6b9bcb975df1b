//! `#[derive(Bake)]` with `#[bake(path = crate::module)]`: implements
//! `databake::Bake` (only; databake's own derive also implements
//! `BakeSize`, which owned fields such as `String` and `Vec` have not) for
//! a struct or an enum, writing it as `path::Type { field: ..., .. }` or
//! `path::Type::Variant(..)`, field by field through their own `Bake`.
//! `core/src/presets/bake.rs` writes the presets with it.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Fields, Path};

#[proc_macro_derive(Bake, attributes(bake))]
pub fn derive_bake(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match bake(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn bake(input: &DeriveInput) -> syn::Result<Tokens> {
    let mut path: Option<Path> = None;
    for a in input.attrs.iter().filter(|a| a.path().is_ident("bake")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("path") {
                path = Some(m.value()?.parse()?);
                Ok(())
            } else {
                Err(m.error("expected `path = crate::module`"))
            }
        })?;
    }
    let Some(path) = path else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(Bake)] needs #[bake(path = crate::module)]",
        ));
    };
    let name = &input.ident;
    let body = match &input.data {
        Data::Struct(s) => {
            let (pattern, expr) = fields(&s.fields, quote!(#path::#name));
            quote! {
                let #name #pattern = self;
                #expr
            }
        }
        Data::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let variant = &v.ident;
                let (pattern, expr) = fields(&v.fields, quote!(#path::#name::#variant));
                quote!(Self::#variant #pattern => { #expr })
            });
            quote!(match self { #(#arms)* })
        }
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(name, "a union cannot be baked"));
        }
    };
    Ok(quote! {
        impl databake::Bake for #name {
            fn bake(&self, env: &databake::CrateEnv) -> databake::TokenStream {
                #body
            }
        }
    })
}

/// The pattern binding a struct's or variant's fields, and the code that
/// bakes each and writes the constructor `ctor` with them.
fn fields(fields: &Fields, ctor: Tokens) -> (Tokens, Tokens) {
    let bindings: Vec<_> = (0..fields.len()).map(|i| format_ident!("f{i}")).collect();
    let bake = quote!(#(let #bindings = databake::Bake::bake(#bindings, env);)*);
    match fields {
        Fields::Named(named) => {
            let names: Vec<_> = named.named.iter().map(|f| &f.ident).collect();
            (
                quote!({ #(#names: #bindings),* }),
                quote! { #bake databake::quote!(#ctor { #(#names: # #bindings),* }) },
            )
        }
        Fields::Unnamed(_) => (
            quote!(( #(#bindings),* )),
            quote! { #bake databake::quote!(#ctor( #(# #bindings),* )) },
        ),
        Fields::Unit => (quote!(), quote!(databake::quote!(#ctor))),
    }
}
