//! The embedded TOML presets as values, for the web page: written by
//! `presets::baked_source` (core/src/presets/bake.rs) from data/; do not
//! edit. After changing a preset: UPDATE_BAKED=1 cargo test -p
//! decodecalc-tests --test suite data::baked
// @generated

/// `presets::DATA_TOML_HASH` of the data/ files this was written from
/// (checked by the page's build, which alone reads this file's values).
#[cfg_attr(feature = "toml", allow(dead_code))]
pub(super) const FROM_DATA_TOML_HASH: u64 = 0x746db901da870695;

extern crate alloc;
pub(super) fn gpu(id: &str) -> Option<crate::gpu::Gpu> {
    Some(match id {
        "rtx3090" => crate::gpu::Gpu {
            id: "rtx3090".to_owned(),
            name: "NVIDIA GeForce RTX 3090 24GB".to_owned(),
            aliases: alloc::vec!["3090".to_owned(), "rtx-3090".to_owned(),],
            memory_bytes: 25438126080u64,
            bandwidth_gb_s: 936f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 71f64,
            fp16_acc16_tflops: Some(142f64),
            tdp_w: 350f64,
            sm_count: Some(82u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "rtx3090-ti" => crate::gpu::Gpu {
            id: "rtx3090-ti".to_owned(),
            name: "NVIDIA GeForce RTX 3090 Ti 24GB".to_owned(),
            aliases: alloc::vec![
                "3090-ti".to_owned(),
                "3090ti".to_owned(),
                "rtx-3090-ti".to_owned(),
                "rtx3090ti".to_owned(),
            ],
            memory_bytes: 25438126080u64,
            bandwidth_gb_s: 1008f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 80f64,
            fp16_acc16_tflops: Some(160f64),
            tdp_w: 450f64,
            sm_count: Some(84u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "rtx4090" => crate::gpu::Gpu {
            id: "rtx4090".to_owned(),
            name: "NVIDIA GeForce RTX 4090 24GB".to_owned(),
            aliases: alloc::vec!["4090".to_owned(), "rtx-4090".to_owned(),],
            memory_bytes: 25386352640u64,
            bandwidth_gb_s: 1008f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 165.2f64,
            fp16_acc16_tflops: Some(330.3f64),
            tdp_w: 450f64,
            sm_count: Some(128u64),
            l2_cache_bytes: Some(75497472u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "rtx5090" => crate::gpu::Gpu {
            id: "rtx5090".to_owned(),
            name: "NVIDIA GeForce RTX 5090 32GB".to_owned(),
            aliases: alloc::vec!["5090".to_owned(), "rtx-5090".to_owned(),],
            memory_bytes: 33668857856u64,
            bandwidth_gb_s: 1792f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 209.5f64,
            fp16_acc16_tflops: Some(419f64),
            tdp_w: 575f64,
            sm_count: Some(170u64),
            l2_cache_bytes: Some(100663296u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "rtx-a6000" => crate::gpu::Gpu {
            id: "rtx-a6000".to_owned(),
            name: "NVIDIA RTX A6000 48GB".to_owned(),
            aliases: alloc::vec![
                "a6000".to_owned(),
                "rtxa6000".to_owned(),
                "rtx-a6000-48gb".to_owned(),
            ],
            memory_bytes: 51160023040u64,
            bandwidth_gb_s: 768f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 154.8f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(84u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Workstation,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "rtx6000-ada" => crate::gpu::Gpu {
            id: "rtx6000-ada".to_owned(),
            name: "NVIDIA RTX 6000 Ada Generation 48GB".to_owned(),
            aliases: alloc::vec![
                "rtx-6000-ada".to_owned(),
                "6000-ada".to_owned(),
                "rtx6000ada".to_owned(),
            ],
            memory_bytes: 50876252160u64,
            bandwidth_gb_s: 960f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 364.2f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(142u64),
            l2_cache_bytes: Some(100663296u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Workstation,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "l4" => crate::gpu::Gpu {
            id: "l4".to_owned(),
            name: "NVIDIA L4 24GB".to_owned(),
            aliases: alloc::vec!["l4-24gb".to_owned(),],
            memory_bytes: 23612293120u64,
            bandwidth_gb_s: 300f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 121f64,
            fp16_acc16_tflops: None,
            tdp_w: 72f64,
            sm_count: Some(58u64),
            l2_cache_bytes: Some(50331648u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "l40s" => crate::gpu::Gpu {
            id: "l40s".to_owned(),
            name: "NVIDIA L40S 48GB".to_owned(),
            aliases: alloc::vec!["l40s-48gb".to_owned(),],
            memory_bytes: 47576711168u64,
            bandwidth_gb_s: 864f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 362.05f64,
            fp16_acc16_tflops: None,
            tdp_w: 350f64,
            sm_count: Some(142u64),
            l2_cache_bytes: Some(100663296u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator l40s kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.7647f64,
                        compute_eff: 0.6457f64,
                        floor_us: 2.873f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 0.7178f64,
                        compute_eff: 0.5397f64,
                        floor_us: 5.092f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int4,
                        bw_eff: 0.8356f64,
                        compute_eff: 0.6955f64,
                        floor_us: 5.12f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int8,
                        bw_eff: 0.8341f64,
                        compute_eff: 0.667f64,
                        floor_us: 5.184f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.7935f64,
                    floor_us: 21.025f64,
                    per_seq_us: 0.0065f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.5801f64,
                    floor_us: 8.021f64,
                    row_ns: 0.8724f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.7822f64,
                    floor_us: 5.271f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.8303f64,
                        compute_eff: 0.5226f64,
                        floor_us: 0f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 0.4709f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.8513f64,
                        compute_eff: 0.432f64,
                        floor_us: 0f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 0.6263f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.8802f64,
                        compute_eff: 0.4387f64,
                        floor_us: 9.168f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 3.5048f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.8034f64,
                        compute_eff: 0.4748f64,
                        floor_us: 0f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 1.1757f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 4.042f64,
                        per_step_us: 1.2901f64,
                        bw_eff: 0.6001f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 0.514f64,
                        per_step_us: 2.3358f64,
                        bw_eff: 0.1635f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 2.188f64,
                        per_step_us: 2.7301f64,
                        bw_eff: 0.1394f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "a10" => crate::gpu::Gpu {
            id: "a10".to_owned(),
            name: "NVIDIA A10 24GB".to_owned(),
            aliases: alloc::vec!["a10g".to_owned(), "a10-24gb".to_owned(),],
            memory_bytes: 23696375808u64,
            bandwidth_gb_s: 600f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 125f64,
            fp16_acc16_tflops: None,
            tdp_w: 150f64,
            sm_count: Some(72u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "a40" => crate::gpu::Gpu {
            id: "a40".to_owned(),
            name: "NVIDIA A40 48GB".to_owned(),
            aliases: alloc::vec!["a40-48gb".to_owned(),],
            memory_bytes: 47608692736u64,
            bandwidth_gb_s: 696f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 149.7f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(84u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "a100-40gb" => crate::gpu::Gpu {
            id: "a100-40gb".to_owned(),
            name: "NVIDIA A100-SXM4-40GB".to_owned(),
            aliases: alloc::vec!["a100-sxm4-40gb".to_owned(),],
            memory_bytes: 42298834944u64,
            bandwidth_gb_s: 1555f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2),
            fp16_tflops: 312f64,
            fp16_acc16_tflops: None,
            tdp_w: 400f64,
            sm_count: Some(108u64),
            l2_cache_bytes: Some(41943040u64),
            interconnect: Some(crate::gpu::Link::Nvlink3),
            interconnect_gb_s: Some(300f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm80,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "a100-80gb" => crate::gpu::Gpu {
            id: "a100-80gb".to_owned(),
            name: "NVIDIA A100-SXM4-80GB".to_owned(),
            aliases: alloc::vec![
                "a100".to_owned(),
                "a100-sxm".to_owned(),
                "a100-sxm4-80gb".to_owned(),
            ],
            memory_bytes: 84987740160u64,
            bandwidth_gb_s: 2039f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2e),
            fp16_tflops: 312f64,
            fp16_acc16_tflops: None,
            tdp_w: 400f64,
            sm_count: Some(108u64),
            l2_cache_bytes: Some(41943040u64),
            interconnect: Some(crate::gpu::Link::Nvlink3),
            interconnect_gb_s: Some(300f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm80,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator a100_sxm kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.7242f64,
                        compute_eff: 0.8359f64,
                        floor_us: 4.804f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int4,
                        bw_eff: 0.7173f64,
                        compute_eff: 0.7774f64,
                        floor_us: 11.26f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int8,
                        bw_eff: 0.7346f64,
                        compute_eff: 0.8087f64,
                        floor_us: 10.24f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.7741f64,
                    floor_us: 27.383f64,
                    per_seq_us: 0.0013f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.6401f64,
                    floor_us: 11.29f64,
                    row_ns: 1.0341f64,
                }),
                gdn_decode: None,
                moe: alloc::vec![crate::timing::MoeKernel {
                    format: crate::timing::MoeFormat::Bf16,
                    bw_eff: 0.7391f64,
                    compute_eff: 0.3283f64,
                    floor_us: 19.302f64,
                    per_expert_us: 0f64,
                    row_bytes_per_hidden: 5.7953f64
                },],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 4.481f64,
                        per_step_us: 0.4134f64,
                        bw_eff: 0.5182f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 10.591f64,
                        per_step_us: 0.8972f64,
                        bw_eff: 0.4741f64,
                        large_base_us: Some(61.238f64),
                        large_bw_eff: Some(0.7002f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 10.468f64,
                        per_step_us: 0.8287f64,
                        bw_eff: 0.3928f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "a100-80gb-pcie" => crate::gpu::Gpu {
            id: "a100-80gb-pcie".to_owned(),
            name: "NVIDIA A100 80GB PCIe".to_owned(),
            aliases: alloc::vec!["a100-pcie".to_owned(), "a100-pcie-80gb".to_owned(),],
            memory_bytes: 84974239744u64,
            bandwidth_gb_s: 1935f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2e),
            fp16_tflops: 312f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(108u64),
            l2_cache_bytes: Some(41943040u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm80,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "h100-sxm" => crate::gpu::Gpu {
            id: "h100-sxm".to_owned(),
            name: "NVIDIA H100 80GB HBM3 (SXM)".to_owned(),
            aliases: alloc::vec![
                "h100".to_owned(),
                "h100-80gb".to_owned(),
                "h100-sxm5".to_owned(),
                "h100-sxm5-80gb".to_owned(),
            ],
            memory_bytes: 85017755648u64,
            bandwidth_gb_s: 3350f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3),
            fp16_tflops: 989.5f64,
            fp16_acc16_tflops: None,
            tdp_w: 700f64,
            sm_count: Some(132u64),
            l2_cache_bytes: Some(52428800u64),
            interconnect: Some(crate::gpu::Link::Nvlink4),
            interconnect_gb_s: Some(450f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator h100_sxm kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8661f64,
                        compute_eff: 0.8099f64,
                        floor_us: 3.945f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 0.848f64,
                        compute_eff: 0.6383f64,
                        floor_us: 7.449f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9298f64,
                    floor_us: 17.456f64,
                    per_seq_us: 0.0263f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.6747f64,
                    floor_us: 12.37f64,
                    row_ns: 0.3606f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.8873f64,
                    floor_us: 6.285f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.86f64,
                        compute_eff: 0.4667f64,
                        floor_us: 23.588f64,
                        per_expert_us: 0.0701f64,
                        row_bytes_per_hidden: 3.7333f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.9325f64,
                        compute_eff: 0.263f64,
                        floor_us: 40.53f64,
                        per_expert_us: 0.0762f64,
                        row_bytes_per_hidden: 9.027f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.6722f64,
                        compute_eff: 0.4663f64,
                        floor_us: 33.261f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 6.3725f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.7885f64,
                        compute_eff: 0.2007f64,
                        floor_us: 34.238f64,
                        per_expert_us: 0.1332f64,
                        row_bytes_per_hidden: 15.6046f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 4.09f64,
                        per_step_us: 0.1923f64,
                        bw_eff: 0.5035f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 5.553f64,
                        per_step_us: 0.8196f64,
                        bw_eff: 0.5507f64,
                        large_base_us: Some(40.897f64),
                        large_bw_eff: Some(0.8201f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 5.458f64,
                        per_step_us: 0.8087f64,
                        bw_eff: 0.4535f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "h100-pcie" => crate::gpu::Gpu {
            id: "h100-pcie".to_owned(),
            name: "NVIDIA H100 PCIe 80GB".to_owned(),
            aliases: alloc::vec!["h100-pcie-80gb".to_owned(),],
            memory_bytes: 85017755648u64,
            bandwidth_gb_s: 2000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2e),
            fp16_tflops: 756.5f64,
            fp16_acc16_tflops: None,
            tdp_w: 350f64,
            sm_count: Some(114u64),
            l2_cache_bytes: Some(52428800u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("h100-sxm".to_owned()),
        },
        "h200" => crate::gpu::Gpu {
            id: "h200".to_owned(),
            name: "NVIDIA H200 141GB (SXM)".to_owned(),
            aliases: alloc::vec!["h200-sxm".to_owned(), "h200-141gb".to_owned(),],
            memory_bytes: 150108897280u64,
            bandwidth_gb_s: 4800f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 989.5f64,
            fp16_acc16_tflops: None,
            tdp_w: 700f64,
            sm_count: Some(132u64),
            l2_cache_bytes: Some(62914560u64),
            interconnect: Some(crate::gpu::Link::Nvlink4),
            interconnect_gb_s: Some(450f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator h200_sxm kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8877f64,
                        compute_eff: 0.8057f64,
                        floor_us: 6.417f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 0.7981f64,
                        compute_eff: 0.7354f64,
                        floor_us: 7.14f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int4,
                        bw_eff: 0.4951f64,
                        compute_eff: 0.8627f64,
                        floor_us: 7.584f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Int8,
                        bw_eff: 0.7258f64,
                        compute_eff: 0.8644f64,
                        floor_us: 7.648f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9071f64,
                    floor_us: 16.994f64,
                    per_seq_us: 0.0369f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.6605f64,
                    floor_us: 12.19f64,
                    row_ns: 0.3496f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.8371f64,
                    floor_us: 6.201f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.8723f64,
                        compute_eff: 0.5637f64,
                        floor_us: 24.608f64,
                        per_expert_us: 0.0503f64,
                        row_bytes_per_hidden: 8.7145f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.9097f64,
                        compute_eff: 0.259f64,
                        floor_us: 37.26f64,
                        per_expert_us: 0.1558f64,
                        row_bytes_per_hidden: 13.1331f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.4954f64,
                        compute_eff: 0.4566f64,
                        floor_us: 32.948f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 6.5312f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.6729f64,
                        compute_eff: 0.2182f64,
                        floor_us: 28.879f64,
                        per_expert_us: 0.0614f64,
                        row_bytes_per_hidden: 21.8416f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 4.268f64,
                        per_step_us: 0.1526f64,
                        bw_eff: 0.5355f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 5.423f64,
                        per_step_us: 0.871f64,
                        bw_eff: 0.5699f64,
                        large_base_us: Some(37.876f64),
                        large_bw_eff: Some(0.8248f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 5.093f64,
                        per_step_us: 0.9804f64,
                        bw_eff: 0.4647f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "h100-nvl" => crate::gpu::Gpu {
            id: "h100-nvl".to_owned(),
            name: "NVIDIA H100 NVL 94GB".to_owned(),
            aliases: alloc::vec!["h100-nvl-94gb".to_owned(), "h100nvl".to_owned(),],
            memory_bytes: 99861594112u64,
            bandwidth_gb_s: 3938f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3),
            fp16_tflops: 835.5f64,
            fp16_acc16_tflops: None,
            tdp_w: 400f64,
            sm_count: Some(132u64),
            l2_cache_bytes: Some(62914560u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("h100-sxm".to_owned()),
        },
        "h20-3e" => crate::gpu::Gpu {
            id: "h20-3e".to_owned(),
            name: "NVIDIA H20-3e 141GB".to_owned(),
            aliases: alloc::vec![
                "h20-141gb".to_owned(),
                "h20e".to_owned(),
                "nvidia-h20-3e".to_owned(),
            ],
            memory_bytes: 150108897280u64,
            bandwidth_gb_s: 4800f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 148f64,
            fp16_acc16_tflops: None,
            tdp_w: 500f64,
            sm_count: Some(78u64),
            l2_cache_bytes: Some(62914560u64),
            interconnect: Some(crate::gpu::Link::Nvlink4),
            interconnect_gb_s: Some(450f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("h200".to_owned()),
        },
        "gb200" => crate::gpu::Gpu {
            id: "gb200".to_owned(),
            name: "NVIDIA GB200 186GB".to_owned(),
            aliases: alloc::vec![
                "gb200-nvl72".to_owned(),
                "gb200-186gb".to_owned(),
                "gb200-superchip".to_owned(),
            ],
            memory_bytes: 197897748480u64,
            bandwidth_gb_s: 8000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 2500f64,
            fp16_acc16_tflops: None,
            tdp_w: 1200f64,
            sm_count: Some(152u64),
            l2_cache_bytes: Some(135528448u64),
            interconnect: Some(crate::gpu::Link::Nvlink5),
            interconnect_gb_s: Some(900f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm100,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator gb200 kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8477f64,
                        compute_eff: 0.5761f64,
                        floor_us: 4.57f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 1f64,
                        compute_eff: 0.6678f64,
                        floor_us: 20.97f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Nvfp4,
                        bw_eff: 0.7022f64,
                        compute_eff: 0.422f64,
                        floor_us: 7.28f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9687f64,
                    floor_us: 13.944f64,
                    per_seq_us: 0.0024f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.5952f64,
                    floor_us: 10.85f64,
                    row_ns: 0.3127f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.8261f64,
                    floor_us: 6.626f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.8353f64,
                        compute_eff: 0.3048f64,
                        floor_us: 13.074f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 2.0552f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.8459f64,
                        compute_eff: 0.1523f64,
                        floor_us: 24.498f64,
                        per_expert_us: 0.0425f64,
                        row_bytes_per_hidden: 8.1738f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Nvfp4,
                        bw_eff: 0.9276f64,
                        compute_eff: 0.3259f64,
                        floor_us: 14.18f64,
                        per_expert_us: 0.093f64,
                        row_bytes_per_hidden: 3.5051f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.5028f64,
                        compute_eff: 0.2208f64,
                        floor_us: 15.649f64,
                        per_expert_us: 0.1878f64,
                        row_bytes_per_hidden: 15.6565f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.4919f64,
                        compute_eff: 0.0889f64,
                        floor_us: 30.768f64,
                        per_expert_us: 0.1042f64,
                        row_bytes_per_hidden: 22.5837f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 5.217f64,
                        per_step_us: 0.0149f64,
                        bw_eff: 0.2586f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 9.124f64,
                        per_step_us: 1.2659f64,
                        bw_eff: 0.4208f64,
                        large_base_us: Some(35.193f64),
                        large_bw_eff: Some(0.6714f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 9.206f64,
                        per_step_us: 1.1457f64,
                        bw_eff: 0.368f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "gb300" => crate::gpu::Gpu {
            id: "gb300".to_owned(),
            name: "NVIDIA GB300 288GB".to_owned(),
            aliases: alloc::vec!["gb300-nvl72".to_owned(), "gb300-288gb".to_owned(),],
            memory_bytes: 297021079552u64,
            bandwidth_gb_s: 8000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 2500f64,
            fp16_acc16_tflops: None,
            tdp_w: 1400f64,
            sm_count: Some(152u64),
            l2_cache_bytes: Some(135528448u64),
            interconnect: Some(crate::gpu::Link::Nvlink5),
            interconnect_gb_s: Some(900f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm103,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator gb300 kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8083f64,
                        compute_eff: 0.7681f64,
                        floor_us: 4.369f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 1f64,
                        compute_eff: 0.7045f64,
                        floor_us: 19.99f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Nvfp4,
                        bw_eff: 0.768f64,
                        compute_eff: 0.5067f64,
                        floor_us: 8.96f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9298f64,
                    floor_us: 13.265f64,
                    per_seq_us: 0.0024f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.8069f64,
                    floor_us: 10.83f64,
                    row_ns: 0.2645f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.8204f64,
                    floor_us: 6.459f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.8183f64,
                        compute_eff: 0.3107f64,
                        floor_us: 12.625f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 1.6458f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.8309f64,
                        compute_eff: 0.1555f64,
                        floor_us: 23.763f64,
                        per_expert_us: 0.0419f64,
                        row_bytes_per_hidden: 7.4147f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Nvfp4,
                        bw_eff: 0.9038f64,
                        compute_eff: 0.342f64,
                        floor_us: 14.061f64,
                        per_expert_us: 0.0898f64,
                        row_bytes_per_hidden: 2.81f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.5089f64,
                        compute_eff: 0.2233f64,
                        floor_us: 15.801f64,
                        per_expert_us: 0.1838f64,
                        row_bytes_per_hidden: 15.5185f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.4875f64,
                        compute_eff: 0.0899f64,
                        floor_us: 33.038f64,
                        per_expert_us: 0.1052f64,
                        row_bytes_per_hidden: 21.8585f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 6.898f64,
                        per_step_us: 0.1354f64,
                        bw_eff: 0.187f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 7.962f64,
                        per_step_us: 1.3419f64,
                        bw_eff: 0.4244f64,
                        large_base_us: Some(34.66f64),
                        large_bw_eff: Some(0.6824f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 8.09f64,
                        per_step_us: 1.3761f64,
                        bw_eff: 0.3708f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "b200" => crate::gpu::Gpu {
            id: "b200".to_owned(),
            name: "NVIDIA B200 180GB".to_owned(),
            aliases: alloc::vec![
                "b200-sxm".to_owned(),
                "b200-180gb".to_owned(),
                "hgx-b200".to_owned(),
            ],
            memory_bytes: 191501434880u64,
            bandwidth_gb_s: 8000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 2250f64,
            fp16_acc16_tflops: None,
            tdp_w: 1000f64,
            sm_count: Some(148u64),
            l2_cache_bytes: Some(132644864u64),
            interconnect: Some(crate::gpu::Link::Nvlink5),
            interconnect_gb_s: Some(900f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm100,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator b200_sxm kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8265f64,
                        compute_eff: 0.7288f64,
                        floor_us: 4.205f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 1f64,
                        compute_eff: 0.6563f64,
                        floor_us: 19.9f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Nvfp4,
                        bw_eff: 0.6817f64,
                        compute_eff: 0.4719f64,
                        floor_us: 7.029f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9287f64,
                    floor_us: 13.904f64,
                    per_seq_us: 0.0006f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.635f64,
                    floor_us: 10.94f64,
                    row_ns: 0.3273f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.7871f64,
                    floor_us: 6.245f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.8059f64,
                        compute_eff: 0.3236f64,
                        floor_us: 13.692f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 2.2747f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.8172f64,
                        compute_eff: 0.1552f64,
                        floor_us: 25.201f64,
                        per_expert_us: 0.0526f64,
                        row_bytes_per_hidden: 9.0226f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Nvfp4,
                        bw_eff: 0.8883f64,
                        compute_eff: 0.3229f64,
                        floor_us: 14.707f64,
                        per_expert_us: 0.1055f64,
                        row_bytes_per_hidden: 3.621f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.4878f64,
                        compute_eff: 0.2246f64,
                        floor_us: 16.364f64,
                        per_expert_us: 0.2066f64,
                        row_bytes_per_hidden: 17.017f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.4566f64,
                        compute_eff: 0.0913f64,
                        floor_us: 35.941f64,
                        per_expert_us: 0.1031f64,
                        row_bytes_per_hidden: 22.5524f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 6.536f64,
                        per_step_us: 0.2725f64,
                        bw_eff: 0.2095f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 8.49f64,
                        per_step_us: 1.2789f64,
                        bw_eff: 0.4316f64,
                        large_base_us: Some(41.411f64),
                        large_bw_eff: Some(0.6938f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 8.569f64,
                        per_step_us: 1.3115f64,
                        bw_eff: 0.364f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "mi300x" => crate::gpu::Gpu {
            id: "mi300x".to_owned(),
            name: "AMD Instinct MI300X 192GB".to_owned(),
            aliases: alloc::vec!["mi300".to_owned(), "instinct-mi300x".to_owned(),],
            memory_bytes: 205822885888u64,
            bandwidth_gb_s: 5300f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3),
            fp16_tflops: 1307.4f64,
            fp16_acc16_tflops: None,
            tdp_w: 750f64,
            sm_count: Some(304u64),
            l2_cache_bytes: Some(33554432u64),
            interconnect: Some(crate::gpu::Link::InfinityFabric),
            interconnect_gb_s: Some(448f64),
            p2p: None,
            arch: crate::gpu::Arch::Gfx942,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "rtx3080" => crate::gpu::Gpu {
            id: "rtx3080".to_owned(),
            name: "NVIDIA GeForce RTX 3080 10GB".to_owned(),
            aliases: alloc::vec![
                "3080".to_owned(),
                "rtx-3080".to_owned(),
                "rtx3080-10gb".to_owned(),
            ],
            memory_bytes: 10472390656u64,
            bandwidth_gb_s: 760f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 59.5f64,
            fp16_acc16_tflops: Some(119f64),
            tdp_w: 320f64,
            sm_count: Some(68u64),
            l2_cache_bytes: Some(5242880u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "rtx3080-12gb" => crate::gpu::Gpu {
            id: "rtx3080-12gb".to_owned(),
            name: "NVIDIA GeForce RTX 3080 12GB".to_owned(),
            aliases: alloc::vec!["3080-12gb".to_owned(), "rtx-3080-12gb".to_owned(),],
            memory_bytes: 12566134784u64,
            bandwidth_gb_s: 912f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 61.3f64,
            fp16_acc16_tflops: Some(122.5f64),
            tdp_w: 350f64,
            sm_count: Some(70u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm86,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("a100-80gb".to_owned()),
        },
        "rtx4080" => crate::gpu::Gpu {
            id: "rtx4080".to_owned(),
            name: "NVIDIA GeForce RTX 4080 16GB".to_owned(),
            aliases: alloc::vec!["4080".to_owned(), "rtx-4080".to_owned(),],
            memory_bytes: 16828596224u64,
            bandwidth_gb_s: 716.8f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 97.5f64,
            fp16_acc16_tflops: Some(194.9f64),
            tdp_w: 320f64,
            sm_count: Some(76u64),
            l2_cache_bytes: Some(67108864u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "rtx4080-super" => crate::gpu::Gpu {
            id: "rtx4080-super".to_owned(),
            name: "NVIDIA GeForce RTX 4080 SUPER 16GB".to_owned(),
            aliases: alloc::vec![
                "4080-super".to_owned(),
                "4080super".to_owned(),
                "rtx-4080-super".to_owned(),
                "rtx4080s".to_owned(),
            ],
            memory_bytes: 16852844544u64,
            bandwidth_gb_s: 736f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6x),
            fp16_tflops: 104.5f64,
            fp16_acc16_tflops: Some(209f64),
            tdp_w: 320f64,
            sm_count: Some(80u64),
            l2_cache_bytes: Some(67108864u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "rtx5070-ti" => crate::gpu::Gpu {
            id: "rtx5070-ti".to_owned(),
            name: "NVIDIA GeForce RTX 5070 Ti 16GB".to_owned(),
            aliases: alloc::vec![
                "5070ti".to_owned(),
                "5070-ti".to_owned(),
                "rtx-5070-ti".to_owned(),
                "rtx5070ti".to_owned(),
            ],
            memory_bytes: 16611540992u64,
            bandwidth_gb_s: 896f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 87.9f64,
            fp16_acc16_tflops: Some(175.8f64),
            tdp_w: 300f64,
            sm_count: Some(70u64),
            l2_cache_bytes: Some(50331648u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "rtx5080" => crate::gpu::Gpu {
            id: "rtx5080".to_owned(),
            name: "NVIDIA GeForce RTX 5080 16GB".to_owned(),
            aliases: alloc::vec!["5080".to_owned(), "rtx-5080".to_owned(),],
            memory_bytes: 16651386880u64,
            bandwidth_gb_s: 960f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 112.6f64,
            fp16_acc16_tflops: Some(225.1f64),
            tdp_w: 360f64,
            sm_count: Some(84u64),
            l2_cache_bytes: Some(67108864u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: Some(false),
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Geforce,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "rtx-pro-6000" => crate::gpu::Gpu {
            id: "rtx-pro-6000".to_owned(),
            name: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition 96GB".to_owned(),
            aliases: alloc::vec![
                "rtx-pro-6000-blackwell".to_owned(),
                "rtx6000-pro".to_owned(),
                "rtx-pro-6000-workstation".to_owned(),
                "rtx-pro-6000-ws".to_owned(),
                "pro6000".to_owned(),
            ],
            memory_bytes: 101970870272u64,
            bandwidth_gb_s: 1792f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 500f64,
            fp16_acc16_tflops: None,
            tdp_w: 600f64,
            sm_count: Some(188u64),
            l2_cache_bytes: Some(134217728u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Workstation,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "rtx-pro-6000-server" => crate::gpu::Gpu {
            id: "rtx-pro-6000-server".to_owned(),
            name: "NVIDIA RTX PRO 6000 Blackwell Server Edition 96GB".to_owned(),
            aliases: alloc::vec![
                "rtx-pro-6000-blackwell-server".to_owned(),
                "rtx6000-pro-server".to_owned(),
                "rtx-pro-6000-se".to_owned(),
            ],
            memory_bytes: 101973950464u64,
            bandwidth_gb_s: 1597f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 500f64,
            fp16_acc16_tflops: None,
            tdp_w: 600f64,
            sm_count: Some(188u64),
            l2_cache_bytes: Some(134217728u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator rtx_pro_6000_server kernel tables (data/kernels)"
                    .to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.9209f64,
                        compute_eff: 0.7976f64,
                        floor_us: 2.846f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 0.9219f64,
                        compute_eff: 0.8014f64,
                        floor_us: 7.252f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Nvfp4,
                        bw_eff: 0.7749f64,
                        compute_eff: 0.6843f64,
                        floor_us: 8.928f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.987f64,
                    floor_us: 0f64,
                    per_seq_us: 0.0038f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.6498f64,
                    floor_us: 8.565f64,
                    row_ns: 0.5882f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.9293f64,
                    floor_us: 5.462f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.9343f64,
                        compute_eff: 0.3221f64,
                        floor_us: 20.555f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 3.596f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Nvfp4,
                        bw_eff: 1f64,
                        compute_eff: 0.4743f64,
                        floor_us: 45.292f64,
                        per_expert_us: 0.3542f64,
                        row_bytes_per_hidden: 1.1692f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.9459f64,
                        compute_eff: 0.4556f64,
                        floor_us: 16.883f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 8.9925f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.8661f64,
                        compute_eff: 0.4829f64,
                        floor_us: 10.051f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 2.7122f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 3.618f64,
                        per_step_us: 0.7246f64,
                        bw_eff: 0.6229f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 2.634f64,
                        per_step_us: 1.913f64,
                        bw_eff: 0.389f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 4.09f64,
                        per_step_us: 1.9623f64,
                        bw_eff: 0.3489f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "rtx-pro-6000-maxq" => crate::gpu::Gpu {
            id: "rtx-pro-6000-maxq".to_owned(),
            name: "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition 96GB".to_owned(),
            aliases: alloc::vec![
                "rtx-pro-6000-max-q".to_owned(),
                "rtx-pro-6000-blackwell-max-q".to_owned(),
                "rtx6000-pro-maxq".to_owned(),
            ],
            memory_bytes: 101970870272u64,
            bandwidth_gb_s: 1792f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr7),
            fp16_tflops: 438.9f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(188u64),
            l2_cache_bytes: Some(134217728u64),
            interconnect: Some(crate::gpu::Link::Pcie5),
            interconnect_gb_s: Some(64f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm120,
            segment: crate::gpu::Segment::Workstation,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "dgx-spark" => crate::gpu::Gpu {
            id: "dgx-spark".to_owned(),
            name: "NVIDIA DGX Spark (GB10) 128GB unified".to_owned(),
            aliases: alloc::vec![
                "gb10".to_owned(),
                "spark".to_owned(),
                "nvidia-gb10".to_owned(),
                "dgx-spark-gb10".to_owned(),
            ],
            memory_bytes: 128523960320u64,
            bandwidth_gb_s: 273f64,
            memory_type: Some(crate::gpu::MemoryType::Lpddr5x),
            fp16_tflops: 125f64,
            fp16_acc16_tflops: None,
            tdp_w: 140f64,
            sm_count: Some(48u64),
            l2_cache_bytes: Some(25165824u64),
            interconnect: Some(crate::gpu::Link::Connectx7),
            interconnect_gb_s: Some(25f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm121,
            segment: crate::gpu::Segment::Workstation,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("rtx-pro-6000-server".to_owned()),
        },
        "l20" => crate::gpu::Gpu {
            id: "l20".to_owned(),
            name: "NVIDIA L20 48GB".to_owned(),
            aliases: alloc::vec!["l20-48gb".to_owned(), "nvidia-l20".to_owned(),],
            memory_bytes: 47665119232u64,
            bandwidth_gb_s: 864f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 119.5f64,
            fp16_acc16_tflops: None,
            tdp_w: 275f64,
            sm_count: Some(92u64),
            l2_cache_bytes: Some(100663296u64),
            interconnect: Some(crate::gpu::Link::Pcie4),
            interconnect_gb_s: Some(32f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm89,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("l40s".to_owned()),
        },
        "t4" => crate::gpu::Gpu {
            id: "t4".to_owned(),
            name: "NVIDIA Tesla T4 16GB".to_owned(),
            aliases: alloc::vec!["tesla-t4".to_owned(), "t4-16gb".to_owned(),],
            memory_bytes: 15843721216u64,
            bandwidth_gb_s: 320f64,
            memory_type: Some(crate::gpu::MemoryType::Gddr6),
            fp16_tflops: 65f64,
            fp16_acc16_tflops: None,
            tdp_w: 70f64,
            sm_count: Some(40u64),
            l2_cache_bytes: Some(4194304u64),
            interconnect: Some(crate::gpu::Link::Pcie3),
            interconnect_gb_s: Some(16f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm75,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "v100-16gb" => crate::gpu::Gpu {
            id: "v100-16gb".to_owned(),
            name: "NVIDIA Tesla V100-SXM2-16GB".to_owned(),
            aliases: alloc::vec![
                "v100".to_owned(),
                "v100-sxm2-16gb".to_owned(),
                "tesla-v100".to_owned(),
            ],
            memory_bytes: 16945512448u64,
            bandwidth_gb_s: 900f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2),
            fp16_tflops: 125f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(80u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Nvlink2),
            interconnect_gb_s: Some(150f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm70,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "v100-32gb" => crate::gpu::Gpu {
            id: "v100-32gb".to_owned(),
            name: "NVIDIA Tesla V100-SXM2-32GB".to_owned(),
            aliases: alloc::vec!["v100-sxm2-32gb".to_owned(), "v100-32g".to_owned(),],
            memory_bytes: 34089730048u64,
            bandwidth_gb_s: 900f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2),
            fp16_tflops: 125f64,
            fp16_acc16_tflops: None,
            tdp_w: 300f64,
            sm_count: Some(80u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Nvlink2),
            interconnect_gb_s: Some(150f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm70,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "v100-pcie-16gb" => crate::gpu::Gpu {
            id: "v100-pcie-16gb".to_owned(),
            name: "NVIDIA Tesla V100-PCIE-16GB".to_owned(),
            aliases: alloc::vec!["v100-pcie".to_owned(), "v100-pcie-16g".to_owned(),],
            memory_bytes: 16945512448u64,
            bandwidth_gb_s: 900f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2),
            fp16_tflops: 112f64,
            fp16_acc16_tflops: None,
            tdp_w: 250f64,
            sm_count: Some(80u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie3),
            interconnect_gb_s: Some(16f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm70,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "v100-pcie-32gb" => crate::gpu::Gpu {
            id: "v100-pcie-32gb".to_owned(),
            name: "NVIDIA Tesla V100-PCIE-32GB".to_owned(),
            aliases: alloc::vec!["v100-pcie-32g".to_owned(),],
            memory_bytes: 34089730048u64,
            bandwidth_gb_s: 900f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm2),
            fp16_tflops: 112f64,
            fp16_acc16_tflops: None,
            tdp_w: 250f64,
            sm_count: Some(80u64),
            l2_cache_bytes: Some(6291456u64),
            interconnect: Some(crate::gpu::Link::Pcie3),
            interconnect_gb_s: Some(16f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm70,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "h20" => crate::gpu::Gpu {
            id: "h20".to_owned(),
            name: "NVIDIA H20 96GB".to_owned(),
            aliases: alloc::vec!["h20-96gb".to_owned(), "nvidia-h20".to_owned(),],
            memory_bytes: 102010716160u64,
            bandwidth_gb_s: 4000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3),
            fp16_tflops: 148f64,
            fp16_acc16_tflops: None,
            tdp_w: 400f64,
            sm_count: Some(78u64),
            l2_cache_bytes: Some(62914560u64),
            interconnect: Some(crate::gpu::Link::Nvlink4),
            interconnect_gb_s: Some(450f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm90,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: Some("h100-sxm".to_owned()),
        },
        "b300" => crate::gpu::Gpu {
            id: "b300".to_owned(),
            name: "NVIDIA B300 SXM6 AC 288GB".to_owned(),
            aliases: alloc::vec![
                "b300-sxm6".to_owned(),
                "blackwell-ultra".to_owned(),
                "hgx-b300".to_owned(),
            ],
            memory_bytes: 287428771840u64,
            bandwidth_gb_s: 8000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 2250f64,
            fp16_acc16_tflops: None,
            tdp_w: 1100f64,
            sm_count: Some(148u64),
            l2_cache_bytes: Some(135528448u64),
            interconnect: Some(crate::gpu::Link::Nvlink5),
            interconnect_gb_s: Some(900f64),
            p2p: None,
            arch: crate::gpu::Arch::Sm103,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: Some(crate::timing::KernelFigures {
                source: "aiconfigurator b300_sxm kernel tables (data/kernels)".to_owned(),
                gemm: alloc::vec![
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Bf16,
                        bw_eff: 0.8104f64,
                        compute_eff: 0.783f64,
                        floor_us: 3.935f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Fp8,
                        bw_eff: 1f64,
                        compute_eff: 0.706f64,
                        floor_us: 17.86f64
                    },
                    crate::timing::GemmKernel {
                        format: crate::timing::GemmFormat::Nvfp4,
                        bw_eff: 0.6372f64,
                        compute_eff: 0.5145f64,
                        floor_us: 6.789f64
                    },
                ],
                decode_attention: Some(crate::timing::DecodeAttentionKernel {
                    bw_eff: 0.9156f64,
                    floor_us: 13.116f64,
                    per_seq_us: 0.0022f64,
                }),
                prefill_attention: Some(crate::timing::PrefillAttentionKernel {
                    compute_eff: 0.804f64,
                    floor_us: 9.883f64,
                    row_ns: 0.2803f64,
                }),
                gdn_decode: Some(crate::timing::GdnDecodeKernel {
                    bw_eff: 0.7922f64,
                    floor_us: 6.029f64,
                }),
                moe: alloc::vec![
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Bf16,
                        bw_eff: 0.7958f64,
                        compute_eff: 0.3258f64,
                        floor_us: 11.896f64,
                        per_expert_us: 0f64,
                        row_bytes_per_hidden: 2.0409f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Fp8,
                        bw_eff: 0.8094f64,
                        compute_eff: 0.1633f64,
                        floor_us: 23.249f64,
                        per_expert_us: 0.0534f64,
                        row_bytes_per_hidden: 7.7947f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Nvfp4,
                        bw_eff: 0.8795f64,
                        compute_eff: 0.3463f64,
                        floor_us: 13.475f64,
                        per_expert_us: 0.1042f64,
                        row_bytes_per_hidden: 3.1158f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Mxfp4,
                        bw_eff: 0.4932f64,
                        compute_eff: 0.2356f64,
                        floor_us: 15.283f64,
                        per_expert_us: 0.1999f64,
                        row_bytes_per_hidden: 16.085f64
                    },
                    crate::timing::MoeKernel {
                        format: crate::timing::MoeFormat::Int4,
                        bw_eff: 0.4756f64,
                        compute_eff: 0.0957f64,
                        floor_us: 34.291f64,
                        per_expert_us: 0.1094f64,
                        row_bytes_per_hidden: 22.5031f64
                    },
                ],
                allreduce: alloc::vec![
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Custom,
                        base_us: 6.406f64,
                        per_step_us: 0.2571f64,
                        bw_eff: 0.1868f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::Nccl,
                        base_us: 8.357f64,
                        per_step_us: 1.2453f64,
                        bw_eff: 0.438f64,
                        large_base_us: Some(40.342f64),
                        large_bw_eff: Some(0.6996f64)
                    },
                    crate::timing::AllReduceKernel {
                        implementation: crate::timing::AllReduceImpl::GatherScatter,
                        base_us: 8.034f64,
                        per_step_us: 1.2612f64,
                        bw_eff: 0.3634f64,
                        large_base_us: None,
                        large_bw_eff: None
                    },
                ],
                weight_only_floor_only: false,
            }),
            kernels_from: None,
        },
        "mi325x" => crate::gpu::Gpu {
            id: "mi325x".to_owned(),
            name: "AMD Instinct MI325X 256GB".to_owned(),
            aliases: alloc::vec!["mi325".to_owned(), "instinct-mi325x".to_owned(),],
            memory_bytes: 274856935424u64,
            bandwidth_gb_s: 6000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 1307.4f64,
            fp16_acc16_tflops: None,
            tdp_w: 1000f64,
            sm_count: Some(304u64),
            l2_cache_bytes: Some(33554432u64),
            interconnect: Some(crate::gpu::Link::InfinityFabric),
            interconnect_gb_s: Some(448f64),
            p2p: None,
            arch: crate::gpu::Arch::Gfx942,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        "mi355x" => crate::gpu::Gpu {
            id: "mi355x".to_owned(),
            name: "AMD Instinct MI355X 288GB".to_owned(),
            aliases: alloc::vec!["mi355".to_owned(), "instinct-mi355x".to_owned(),],
            memory_bytes: 309216673792u64,
            bandwidth_gb_s: 8000f64,
            memory_type: Some(crate::gpu::MemoryType::Hbm3e),
            fp16_tflops: 2516.6f64,
            fp16_acc16_tflops: None,
            tdp_w: 1400f64,
            sm_count: Some(256u64),
            l2_cache_bytes: Some(33554432u64),
            interconnect: Some(crate::gpu::Link::InfinityFabric),
            interconnect_gb_s: Some(537.6f64),
            p2p: None,
            arch: crate::gpu::Arch::Gfx950,
            segment: crate::gpu::Segment::Datacenter,
            source: "".to_owned(),
            kernels: None,
            kernels_from: None,
        },
        _ => return None,
    })
}
pub(super) fn model(id: &str) -> Option<crate::presets::ModelFile> {
    Some (match id { "nemotron-nano-12b-v2" => crate :: presets :: ModelFile { id : "nemotron-nano-12b-v2" . to_owned () , name : "NVIDIA-Nemotron-Nano-12B-v2" . to_owned () , hf_repo : Some ("nvidia/NVIDIA-Nemotron-Nano-12B-v2" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (12310000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"NemotronHForCausalLM\"],\"conv_kernel\":4,\"expand\":2,\"head_dim\":128,\"hidden_size\":5120,\"hybrid_override_pattern\":\"M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M-\",\"intermediate_size\":20480,\"mamba_head_dim\":80,\"mamba_num_heads\":128,\"max_position_embeddings\":131072,\"n_groups\":8,\"num_attention_heads\":40,\"num_hidden_layers\":62,\"num_key_value_heads\":8,\"ssm_state_size\":128,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":131072}")) , quantization : None , notes : None , } , "nemotron-nano-12b-v2-awq4" => crate :: presets :: ModelFile { id : "nemotron-nano-12b-v2-awq4" . to_owned () , name : "NVIDIA-Nemotron-Nano-12B-v2 AWQ 4-bit" . to_owned () , hf_repo : Some ("cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit" . to_owned ()) , source : "" . to_owned () , base : Some ("nemotron-nano-12b-v2" . to_owned ()) , published_params : None , checkpoint_bytes : None , config : None , quantization : Some (crate :: quant :: WeightQuant { method : crate :: quant :: QuantMethod :: Awq , bits : 4u64 , group_size : Some (128u64) , zero_point : true , unquantized : alloc :: vec ! ["embed_tokens" . to_owned () , "lm_head" . to_owned () , "attention" . to_owned () ,] , lm_head_quantized : false , block : None , per_tensor : false , fp8_kinds : alloc :: vec ! [] , fp8_layers : alloc :: vec ! [] , double_quant : false , release : None }) , notes : None , } , "nemotron-nano-12b-v2-awq8" => crate :: presets :: ModelFile { id : "nemotron-nano-12b-v2-awq8" . to_owned () , name : "NVIDIA-Nemotron-Nano-12B-v2 AWQ 8-bit" . to_owned () , hf_repo : Some ("cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-8bit" . to_owned ()) , source : "" . to_owned () , base : Some ("nemotron-nano-12b-v2" . to_owned ()) , published_params : None , checkpoint_bytes : Some (14340000000u64) , config : None , quantization : Some (crate :: quant :: WeightQuant { method : crate :: quant :: QuantMethod :: Awq , bits : 8u64 , group_size : Some (128u64) , zero_point : true , unquantized : alloc :: vec ! ["embed_tokens" . to_owned () , "lm_head" . to_owned () , "attention" . to_owned () ,] , lm_head_quantized : false , block : None , per_tensor : false , fp8_kinds : alloc :: vec ! [] , fp8_layers : alloc :: vec ! [] , double_quant : false , release : None }) , notes : None , } , "nemotron-nano-9b-v2" => crate :: presets :: ModelFile { id : "nemotron-nano-9b-v2" . to_owned () , name : "NVIDIA-Nemotron-Nano-9B-v2" . to_owned () , hf_repo : Some ("nvidia/NVIDIA-Nemotron-Nano-9B-v2" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"NemotronHForCausalLM\"],\"conv_kernel\":4,\"head_dim\":128,\"hidden_size\":4480,\"hybrid_override_pattern\":\"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-\",\"intermediate_size\":15680,\"mamba_head_dim\":80,\"mamba_num_heads\":128,\"max_position_embeddings\":131072,\"model_type\":\"nemotron_h\",\"n_groups\":8,\"num_attention_heads\":40,\"num_hidden_layers\":56,\"num_key_value_heads\":8,\"ssm_state_size\":128,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":131072}")) , quantization : None , notes : None , } , "nemotron-h-8b" => crate :: presets :: ModelFile { id : "nemotron-h-8b" . to_owned () , name : "Nemotron-H-8B-Base-8K" . to_owned () , hf_repo : Some ("nvidia/Nemotron-H-8B-Base-8K" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"NemotronHForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"attention_head_dim\":128,\"bos_token_id\":1,\"chunk_size\":128,\"conv_kernel\":4,\"eos_token_id\":2,\"expand\":2,\"hidden_dropout\":0.0,\"hidden_size\":4096,\"hybrid_override_pattern\":\"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\",\"initializer_range\":0.02,\"intermediate_size\":21504,\"layer_norm_epsilon\":0.00001,\"mamba_head_dim\":64,\"mamba_hidden_act\":\"silu\",\"mamba_num_heads\":128,\"mamba_proj_bias\":false,\"max_position_embeddings\":8192,\"mlp_bias\":false,\"mlp_hidden_act\":\"relu2\",\"model_type\":\"nemotron_h\",\"n_groups\":8,\"num_attention_heads\":32,\"num_hidden_layers\":52,\"num_key_value_heads\":8,\"num_logits_to_keep\":1,\"pad_token_id\":0,\"rescale_prenorm_residual\":true,\"residual_in_fp32\":false,\"rms_norm_eps\":0.00001,\"ssm_state_size\":128,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.48.0.dev0\",\"use_bias\":false,\"use_cache\":true,\"use_conv_bias\":true,\"use_mamba_kernels\":true,\"vocab_size\":131072}")) , quantization : None , notes : None , } , "llama-3.1-8b" => crate :: presets :: ModelFile { id : "llama-3.1-8b" . to_owned () , name : "Llama-3.1-8B" . to_owned () , hf_repo : Some ("meta-llama/Llama-3.1-8B" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (8030000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"LlamaForCausalLM\"],\"head_dim\":128,\"hidden_size\":4096,\"intermediate_size\":14336,\"max_position_embeddings\":131072,\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}")) , quantization : None , notes : None , } , "llama-3.1-70b" => crate :: presets :: ModelFile { id : "llama-3.1-70b" . to_owned () , name : "Llama-3.1-70B" . to_owned () , hf_repo : Some ("meta-llama/Llama-3.1-70B" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (70600000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"LlamaForCausalLM\"],\"head_dim\":128,\"hidden_size\":8192,\"intermediate_size\":28672,\"max_position_embeddings\":131072,\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}")) , quantization : None , notes : None , } , "mistral-7b-v0.3" => crate :: presets :: ModelFile { id : "mistral-7b-v0.3" . to_owned () , name : "Mistral-7B-v0.3" . to_owned () , hf_repo : Some ("mistralai/Mistral-7B-v0.3" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (7250000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"MistralForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":1,\"eos_token_id\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mistral\",\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"rms_norm_eps\":0.00001,\"rope_theta\":1000000.0,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.42.0.dev0\",\"use_cache\":true,\"vocab_size\":32768}")) , quantization : None , notes : None , } , "qwen2.5-7b" => crate :: presets :: ModelFile { id : "qwen2.5-7b" . to_owned () , name : "Qwen2.5-7B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-7B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (7610000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":3584,\"initializer_range\":0.02,\"intermediate_size\":18944,\"max_position_embeddings\":32768,\"max_window_layers\":28,\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.43.1\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-32b" => crate :: presets :: ModelFile { id : "qwen2.5-32b" . to_owned () , name : "Qwen2.5-32B" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-32B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (32800000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"head_dim\":128,\"hidden_size\":5120,\"intermediate_size\":27648,\"max_position_embeddings\":32768,\"num_attention_heads\":40,\"num_hidden_layers\":64,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-0.5b" => crate :: presets :: ModelFile { id : "qwen2.5-0.5b" . to_owned () , name : "Qwen2.5-0.5B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-0.5B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":896,\"initializer_range\":0.02,\"intermediate_size\":4864,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-1.5b" => crate :: presets :: ModelFile { id : "qwen2.5-1.5b" . to_owned () , name : "Qwen2.5-1.5B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-1.5B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (1543714304f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":1536,\"initializer_range\":0.02,\"intermediate_size\":8960,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":12,\"num_hidden_layers\":28,\"num_key_value_heads\":2,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.43.1\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-3b" => crate :: presets :: ModelFile { id : "qwen2.5-3b" . to_owned () , name : "Qwen2.5-3B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-3B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (3085938688f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":11008,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":16,\"num_hidden_layers\":36,\"num_key_value_heads\":2,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.43.1\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-14b" => crate :: presets :: ModelFile { id : "qwen2.5-14b" . to_owned () , name : "Qwen2.5-14B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-14B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":13824,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-72b" => crate :: presets :: ModelFile { id : "qwen2.5-72b" . to_owned () , name : "Qwen2.5-72B-Instruct" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-72B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (72706203648f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":8192,\"initializer_range\":0.02,\"intermediate_size\":29568,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.43.1\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-0.5b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-0.5b-gptq-int4" . to_owned () , name : "Qwen2.5-0.5B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (459000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":896,\"initializer_range\":0.02,\"intermediate_size\":4864,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-0.5b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-0.5b-gptq-int8" . to_owned () , name : "Qwen2.5-0.5B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (640000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":896,\"initializer_range\":0.02,\"intermediate_size\":4864,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-0.5b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-0.5b-awq" . to_owned () , name : "Qwen2.5-0.5B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-0.5B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":896,\"initializer_range\":0.02,\"intermediate_size\":4864,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"transformers_version\":\"4.41.1\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-1.5b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-1.5b-gptq-int4" . to_owned () , name : "Qwen2.5-1.5B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-1.5B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (1150000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":1536,\"initializer_range\":0.02,\"intermediate_size\":8960,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":12,\"num_hidden_layers\":28,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-1.5b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-1.5b-gptq-int8" . to_owned () , name : "Qwen2.5-1.5B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-1.5B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (1810000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":1536,\"initializer_range\":0.02,\"intermediate_size\":8960,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":12,\"num_hidden_layers\":28,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-1.5b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-1.5b-awq" . to_owned () , name : "Qwen2.5-1.5B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-1.5B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":1536,\"initializer_range\":0.02,\"intermediate_size\":8960,\"max_position_embeddings\":32768,\"max_window_layers\":21,\"model_type\":\"qwen2\",\"num_attention_heads\":12,\"num_hidden_layers\":28,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-3b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-3b-gptq-int4" . to_owned () , name : "Qwen2.5-3B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-3B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (2070000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":11008,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":16,\"num_hidden_layers\":36,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-3b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-3b-gptq-int8" . to_owned () , name : "Qwen2.5-3B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-3B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (3470000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":11008,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":16,\"num_hidden_layers\":36,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-3b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-3b-awq" . to_owned () , name : "Qwen2.5-3B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-3B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":11008,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":16,\"num_hidden_layers\":36,\"num_key_value_heads\":2,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":32768,\"tie_word_embeddings\":true,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen2.5-7b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-7b-gptq-int4" . to_owned () , name : "Qwen2.5-7B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (5580000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":3584,\"initializer_range\":0.02,\"intermediate_size\":18944,\"max_position_embeddings\":32768,\"max_window_layers\":28,\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-7b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-7b-gptq-int8" . to_owned () , name : "Qwen2.5-7B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":3584,\"initializer_range\":0.02,\"intermediate_size\":18944,\"max_position_embeddings\":32768,\"max_window_layers\":28,\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-7b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-7b-awq" . to_owned () , name : "Qwen2.5-7B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-7B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (5570000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":3584,\"initializer_range\":0.02,\"intermediate_size\":18944,\"max_position_embeddings\":32768,\"max_window_layers\":28,\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-14b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-14b-gptq-int4" . to_owned () , name : "Qwen2.5-14B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (9980000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":13824,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-14b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-14b-gptq-int8" . to_owned () , name : "Qwen2.5-14B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-14B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (16660000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":13824,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-14b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-14b-awq" . to_owned () , name : "Qwen2.5-14B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-14B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (9980000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":13824,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-32b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-32b-gptq-int4" . to_owned () , name : "Qwen2.5-32B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-32B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (19340000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":27648,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":64,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-32b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-32b-gptq-int8" . to_owned () , name : "Qwen2.5-32B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-32B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (35040000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":27648,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":64,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-32b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-32b-awq" . to_owned () , name : "Qwen2.5-32B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-32B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (19330000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":27648,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":64,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-72b-gptq-int4" => crate :: presets :: ModelFile { id : "qwen2.5-72b-gptq-int4" . to_owned () , name : "Qwen2.5-72B-Instruct-GPTQ-Int4" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (41650000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":8192,\"initializer_range\":0.02,\"intermediate_size\":29696,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-72b-gptq-int8" => crate :: presets :: ModelFile { id : "qwen2.5-72b-gptq-int8" . to_owned () , name : "Qwen2.5-72B-Instruct-GPTQ-Int8" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":8192,\"initializer_range\":0.02,\"intermediate_size\":29696,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":8,\"desc_act\":false,\"group_size\":128,\"quant_method\":\"gptq\",\"sym\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen2.5-72b-awq" => crate :: presets :: ModelFile { id : "qwen2.5-72b-awq" . to_owned () , name : "Qwen2.5-72B-Instruct-AWQ" . to_owned () , hf_repo : Some ("Qwen/Qwen2.5-72B-Instruct-AWQ" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : Some (41570000000u64) , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"hidden_act\":\"silu\",\"hidden_size\":8192,\"initializer_range\":0.02,\"intermediate_size\":29696,\"max_position_embeddings\":32768,\"max_window_layers\":70,\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"quantization_config\":{\"bits\":4,\"group_size\":128,\"quant_method\":\"awq\",\"version\":\"gemm\",\"zero_point\":true},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":152064}")) , quantization : None , notes : None , } , "qwen3-8b" => crate :: presets :: ModelFile { id : "qwen3-8b" . to_owned () , name : "Qwen3-8B" . to_owned () , hf_repo : Some ("Qwen/Qwen3-8B" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (8190000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"bos_token_id\":151643,\"eos_token_id\":151645,\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,\"intermediate_size\":12288,\"max_position_embeddings\":40960,\"max_window_layers\":36,\"model_type\":\"qwen3\",\"num_attention_heads\":32,\"num_hidden_layers\":36,\"num_key_value_heads\":8,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.51.0\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen3-32b" => crate :: presets :: ModelFile { id : "qwen3-32b" . to_owned () , name : "Qwen3-32B" . to_owned () , hf_repo : Some ("Qwen/Qwen3-32B" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (32800000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3ForCausalLM\"],\"head_dim\":128,\"hidden_size\":5120,\"intermediate_size\":25600,\"max_position_embeddings\":40960,\"num_attention_heads\":64,\"num_hidden_layers\":64,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen3-30b-a3b" => crate :: presets :: ModelFile { id : "qwen3-30b-a3b" . to_owned () , name : "Qwen3-30B-A3B" . to_owned () , hf_repo : Some ("Qwen/Qwen3-30B-A3B" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (30500000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"bos_token_id\":151643,\"decoder_sparse_step\":1,\"eos_token_id\":151645,\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":6144,\"max_position_embeddings\":40960,\"max_window_layers\":48,\"mlp_only_layers\":[],\"model_type\":\"qwen3_moe\",\"moe_intermediate_size\":768,\"norm_topk_prob\":true,\"num_attention_heads\":32,\"num_experts\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":48,\"num_key_value_heads\":4,\"output_router_logits\":false,\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"router_aux_loss_coef\":0.001,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.51.0\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "mixtral-8x7b" => crate :: presets :: ModelFile { id : "mixtral-8x7b" . to_owned () , name : "Mixtral-8x7B-v0.1" . to_owned () , hf_repo : Some ("mistralai/Mixtral-8x7B-v0.1" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (46700000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"MixtralForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":1,\"eos_token_id\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mixtral\",\"num_attention_heads\":32,\"num_experts_per_tok\":2,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"num_local_experts\":8,\"output_router_logits\":false,\"rms_norm_eps\":0.00001,\"rope_theta\":1000000.0,\"router_aux_loss_coef\":0.02,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.36.0.dev0\",\"use_cache\":true,\"vocab_size\":32000}")) , quantization : None , notes : None , } , "gemma-2-9b" => crate :: presets :: ModelFile { id : "gemma-2-9b" . to_owned () , name : "Gemma-2-9B" . to_owned () , hf_repo : Some ("google/gemma-2-9b" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (9240000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Gemma2ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_logit_softcapping\":50.0,\"bos_token_id\":2,\"cache_implementation\":\"hybrid\",\"eos_token_id\":1,\"final_logit_softcapping\":30.0,\"head_dim\":256,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":3584,\"initializer_range\":0.02,\"intermediate_size\":14336,\"max_position_embeddings\":8192,\"model_type\":\"gemma2\",\"num_attention_heads\":16,\"num_hidden_layers\":42,\"num_key_value_heads\":8,\"pad_token_id\":0,\"query_pre_attn_scalar\":256,\"rms_norm_eps\":1e-6,\"rope_theta\":10000.0,\"sliding_window\":4096,\"sliding_window_size\":4096,\"torch_dtype\":\"float32\",\"transformers_version\":\"4.42.0.dev0\",\"use_cache\":true,\"vocab_size\":256000}")) , quantization : None , notes : None , } , "gemma-3-12b" => crate :: presets :: ModelFile { id : "gemma-3-12b" . to_owned () , name : "Gemma-3-12B-it" . to_owned () , hf_repo : Some ("google/gemma-3-12b-it" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\",\"text_config\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"cache_implementation\":\"hybrid\",\"eos_token_id\":[1,106],\"head_dim\":256,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":3840,\"initializer_range\":0.02,\"intermediate_size\":15360,\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\"],\"max_position_embeddings\":131072,\"model_type\":\"gemma3_text\",\"num_attention_heads\":16,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"query_pre_attn_scalar\":256,\"rms_norm_eps\":1e-6,\"rope_local_base_freq\":10000,\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"linear\"},\"rope_theta\":1000000,\"sliding_window\":1024,\"sliding_window_pattern\":6,\"use_bidirectional_attention\":false,\"use_cache\":true,\"vocab_size\":262208},\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"hidden_size\":1152,\"image_size\":896,\"intermediate_size\":4304,\"model_type\":\"siglip_vision_model\",\"num_attention_heads\":16,\"num_hidden_layers\":27,\"patch_size\":14,\"vision_use_head\":false}}")) , quantization : None , notes : None , } , "gpt-oss-20b" => crate :: presets :: ModelFile { id : "gpt-oss-20b" . to_owned () , name : "gpt-oss-20b" . to_owned () , hf_repo : Some ("openai/gpt-oss-20b" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (20900000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"GptOssForCausalLM\"],\"attention_bias\":true,\"attention_dropout\":0.0,\"eos_token_id\":200002,\"experts_per_token\":4,\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2880,\"initial_context_length\":4096,\"initializer_range\":0.02,\"intermediate_size\":2880,\"layer_types\":[\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\"],\"max_position_embeddings\":131072,\"model_type\":\"gpt_oss\",\"num_attention_heads\":64,\"num_experts_per_tok\":4,\"num_hidden_layers\":24,\"num_key_value_heads\":8,\"num_local_experts\":32,\"output_router_logits\":false,\"pad_token_id\":199999,\"quantization_config\":{\"modules_to_not_convert\":[\"model.layers.*.self_attn\",\"model.layers.*.mlp.router\",\"model.embed_tokens\",\"lm_head\"],\"quant_method\":\"mxfp4\"},\"rms_norm_eps\":0.00001,\"rope_scaling\":{\"beta_fast\":32.0,\"beta_slow\":1.0,\"factor\":32.0,\"original_max_position_embeddings\":4096,\"rope_type\":\"yarn\",\"truncate\":false},\"rope_theta\":150000,\"router_aux_loss_coef\":0.9,\"sliding_window\":128,\"swiglu_limit\":7.0,\"tie_word_embeddings\":false,\"transformers_version\":\"4.55.0.dev0\",\"use_cache\":true,\"vocab_size\":201088}")) , quantization : None , notes : None , } , "gpt-oss-120b" => crate :: presets :: ModelFile { id : "gpt-oss-120b" . to_owned () , name : "gpt-oss-120b" . to_owned () , hf_repo : Some ("openai/gpt-oss-120b" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (116800000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"GptOssForCausalLM\"],\"attention_bias\":true,\"attention_dropout\":0.0,\"eos_token_id\":200002,\"experts_per_token\":4,\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2880,\"initial_context_length\":4096,\"initializer_range\":0.02,\"intermediate_size\":2880,\"layer_types\":[\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"full_attention\"],\"max_position_embeddings\":131072,\"model_type\":\"gpt_oss\",\"num_attention_heads\":64,\"num_experts_per_tok\":4,\"num_hidden_layers\":36,\"num_key_value_heads\":8,\"num_local_experts\":128,\"output_router_logits\":false,\"pad_token_id\":199999,\"quantization_config\":{\"modules_to_not_convert\":[\"model.layers.*.self_attn\",\"model.layers.*.mlp.router\",\"model.embed_tokens\",\"lm_head\"],\"quant_method\":\"mxfp4\"},\"rms_norm_eps\":0.00001,\"rope_scaling\":{\"beta_fast\":32.0,\"beta_slow\":1.0,\"factor\":32.0,\"original_max_position_embeddings\":4096,\"rope_type\":\"yarn\",\"truncate\":false},\"rope_theta\":150000,\"router_aux_loss_coef\":0.9,\"sliding_window\":128,\"swiglu_limit\":7.0,\"tie_word_embeddings\":false,\"transformers_version\":\"4.55.0.dev0\",\"use_cache\":true,\"vocab_size\":201088}")) , quantization : None , notes : None , } , "qwen3-235b-a22b-fp8" => crate :: presets :: ModelFile { id : "qwen3-235b-a22b-fp8" . to_owned () , name : "Qwen3-235B-A22B-FP8" . to_owned () , hf_repo : Some ("Qwen/Qwen3-235B-A22B-FP8" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (235100000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"bos_token_id\":151643,\"decoder_sparse_step\":1,\"eos_token_id\":151645,\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,\"intermediate_size\":12288,\"max_position_embeddings\":40960,\"max_window_layers\":94,\"mlp_only_layers\":[],\"model_type\":\"qwen3_moe\",\"moe_intermediate_size\":1536,\"norm_topk_prob\":true,\"num_attention_heads\":64,\"num_experts\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":94,\"num_key_value_heads\":4,\"output_router_logits\":false,\"quantization_config\":{\"activation_scheme\":\"dynamic\",\"fmt\":\"e4m3\",\"modules_to_not_convert\":[\"lm_head\",\"model.layers.0.input_layernorm\",\"model.layers.0.mlp.gate\",\"model.layers.0.post_attention_layernorm\",\"model.layers.1.input_layernorm\",\"model.layers.1.mlp.gate\",\"model.layers.1.post_attention_layernorm\",\"model.layers.2.input_layernorm\",\"model.layers.2.mlp.gate\",\"model.layers.2.post_attention_layernorm\",\"model.layers.3.input_layernorm\",\"model.layers.3.mlp.gate\",\"model.layers.3.post_attention_layernorm\",\"model.layers.4.input_layernorm\",\"model.layers.4.mlp.gate\",\"model.layers.4.post_attention_layernorm\",\"model.layers.5.input_layernorm\",\"model.layers.5.mlp.gate\",\"model.layers.5.post_attention_layernorm\",\"model.layers.6.input_layernorm\",\"model.layers.6.mlp.gate\",\"model.layers.6.post_attention_layernorm\",\"model.layers.7.input_layernorm\",\"model.layers.7.mlp.gate\",\"model.layers.7.post_attention_layernorm\",\"model.layers.8.input_layernorm\",\"model.layers.8.mlp.gate\",\"model.layers.8.post_attention_layernorm\",\"model.layers.9.input_layernorm\",\"model.layers.9.mlp.gate\",\"model.layers.9.post_attention_layernorm\",\"model.layers.10.input_layernorm\",\"model.layers.10.mlp.gate\",\"model.layers.10.post_attention_layernorm\",\"model.layers.11.input_layernorm\",\"model.layers.11.mlp.gate\",\"model.layers.11.post_attention_layernorm\",\"model.layers.12.input_layernorm\",\"model.layers.12.mlp.gate\",\"model.layers.12.post_attention_layernorm\",\"model.layers.13.input_layernorm\",\"model.layers.13.mlp.gate\",\"model.layers.13.post_attention_layernorm\",\"model.layers.14.input_layernorm\",\"model.layers.14.mlp.gate\",\"model.layers.14.post_attention_layernorm\",\"model.layers.15.input_layernorm\",\"model.layers.15.mlp.gate\",\"model.layers.15.post_attention_layernorm\",\"model.layers.16.input_layernorm\",\"model.layers.16.mlp.gate\",\"model.layers.16.post_attention_layernorm\",\"model.layers.17.input_layernorm\",\"model.layers.17.mlp.gate\",\"model.layers.17.post_attention_layernorm\",\"model.layers.18.input_layernorm\",\"model.layers.18.mlp.gate\",\"model.layers.18.post_attention_layernorm\",\"model.layers.19.input_layernorm\",\"model.layers.19.mlp.gate\",\"model.layers.19.post_attention_layernorm\",\"model.layers.20.input_layernorm\",\"model.layers.20.mlp.gate\",\"model.layers.20.post_attention_layernorm\",\"model.layers.21.input_layernorm\",\"model.layers.21.mlp.gate\",\"model.layers.21.post_attention_layernorm\",\"model.layers.22.input_layernorm\",\"model.layers.22.mlp.gate\",\"model.layers.22.post_attention_layernorm\",\"model.layers.23.input_layernorm\",\"model.layers.23.mlp.gate\",\"model.layers.23.post_attention_layernorm\",\"model.layers.24.input_layernorm\",\"model.layers.24.mlp.gate\",\"model.layers.24.post_attention_layernorm\",\"model.layers.25.input_layernorm\",\"model.layers.25.mlp.gate\",\"model.layers.25.post_attention_layernorm\",\"model.layers.26.input_layernorm\",\"model.layers.26.mlp.gate\",\"model.layers.26.post_attention_layernorm\",\"model.layers.27.input_layernorm\",\"model.layers.27.mlp.gate\",\"model.layers.27.post_attention_layernorm\",\"model.layers.28.input_layernorm\",\"model.layers.28.mlp.gate\",\"model.layers.28.post_attention_layernorm\",\"model.layers.29.input_layernorm\",\"model.layers.29.mlp.gate\",\"model.layers.29.post_attention_layernorm\",\"model.layers.30.input_layernorm\",\"model.layers.30.mlp.gate\",\"model.layers.30.post_attention_layernorm\",\"model.layers.31.input_layernorm\",\"model.layers.31.mlp.gate\",\"model.layers.31.post_attention_layernorm\",\"model.layers.32.input_layernorm\",\"model.layers.32.mlp.gate\",\"model.layers.32.post_attention_layernorm\",\"model.layers.33.input_layernorm\",\"model.layers.33.mlp.gate\",\"model.layers.33.post_attention_layernorm\",\"model.layers.34.input_layernorm\",\"model.layers.34.mlp.gate\",\"model.layers.34.post_attention_layernorm\",\"model.layers.35.input_layernorm\",\"model.layers.35.mlp.gate\",\"model.layers.35.post_attention_layernorm\",\"model.layers.36.input_layernorm\",\"model.layers.36.mlp.gate\",\"model.layers.36.post_attention_layernorm\",\"model.layers.37.input_layernorm\",\"model.layers.37.mlp.gate\",\"model.layers.37.post_attention_layernorm\",\"model.layers.38.input_layernorm\",\"model.layers.38.mlp.gate\",\"model.layers.38.post_attention_layernorm\",\"model.layers.39.input_layernorm\",\"model.layers.39.mlp.gate\",\"model.layers.39.post_attention_layernorm\",\"model.layers.40.input_layernorm\",\"model.layers.40.mlp.gate\",\"model.layers.40.post_attention_layernorm\",\"model.layers.41.input_layernorm\",\"model.layers.41.mlp.gate\",\"model.layers.41.post_attention_layernorm\",\"model.layers.42.input_layernorm\",\"model.layers.42.mlp.gate\",\"model.layers.42.post_attention_layernorm\",\"model.layers.43.input_layernorm\",\"model.layers.43.mlp.gate\",\"model.layers.43.post_attention_layernorm\",\"model.layers.44.input_layernorm\",\"model.layers.44.mlp.gate\",\"model.layers.44.post_attention_layernorm\",\"model.layers.45.input_layernorm\",\"model.layers.45.mlp.gate\",\"model.layers.45.post_attention_layernorm\",\"model.layers.46.input_layernorm\",\"model.layers.46.mlp.gate\",\"model.layers.46.post_attention_layernorm\",\"model.layers.47.input_layernorm\",\"model.layers.47.mlp.gate\",\"model.layers.47.post_attention_layernorm\",\"model.layers.48.input_layernorm\",\"model.layers.48.mlp.gate\",\"model.layers.48.post_attention_layernorm\",\"model.layers.49.input_layernorm\",\"model.layers.49.mlp.gate\",\"model.layers.49.post_attention_layernorm\",\"model.layers.50.input_layernorm\",\"model.layers.50.mlp.gate\",\"model.layers.50.post_attention_layernorm\",\"model.layers.51.input_layernorm\",\"model.layers.51.mlp.gate\",\"model.layers.51.post_attention_layernorm\",\"model.layers.52.input_layernorm\",\"model.layers.52.mlp.gate\",\"model.layers.52.post_attention_layernorm\",\"model.layers.53.input_layernorm\",\"model.layers.53.mlp.gate\",\"model.layers.53.post_attention_layernorm\",\"model.layers.54.input_layernorm\",\"model.layers.54.mlp.gate\",\"model.layers.54.post_attention_layernorm\",\"model.layers.55.input_layernorm\",\"model.layers.55.mlp.gate\",\"model.layers.55.post_attention_layernorm\",\"model.layers.56.input_layernorm\",\"model.layers.56.mlp.gate\",\"model.layers.56.post_attention_layernorm\",\"model.layers.57.input_layernorm\",\"model.layers.57.mlp.gate\",\"model.layers.57.post_attention_layernorm\",\"model.layers.58.input_layernorm\",\"model.layers.58.mlp.gate\",\"model.layers.58.post_attention_layernorm\",\"model.layers.59.input_layernorm\",\"model.layers.59.mlp.gate\",\"model.layers.59.post_attention_layernorm\",\"model.layers.60.input_layernorm\",\"model.layers.60.mlp.gate\",\"model.layers.60.post_attention_layernorm\",\"model.layers.61.input_layernorm\",\"model.layers.61.mlp.gate\",\"model.layers.61.post_attention_layernorm\",\"model.layers.62.input_layernorm\",\"model.layers.62.mlp.gate\",\"model.layers.62.post_attention_layernorm\",\"model.layers.63.input_layernorm\",\"model.layers.63.mlp.gate\",\"model.layers.63.post_attention_layernorm\",\"model.layers.64.input_layernorm\",\"model.layers.64.mlp.gate\",\"model.layers.64.post_attention_layernorm\",\"model.layers.65.input_layernorm\",\"model.layers.65.mlp.gate\",\"model.layers.65.post_attention_layernorm\",\"model.layers.66.input_layernorm\",\"model.layers.66.mlp.gate\",\"model.layers.66.post_attention_layernorm\",\"model.layers.67.input_layernorm\",\"model.layers.67.mlp.gate\",\"model.layers.67.post_attention_layernorm\",\"model.layers.68.input_layernorm\",\"model.layers.68.mlp.gate\",\"model.layers.68.post_attention_layernorm\",\"model.layers.69.input_layernorm\",\"model.layers.69.mlp.gate\",\"model.layers.69.post_attention_layernorm\",\"model.layers.70.input_layernorm\",\"model.layers.70.mlp.gate\",\"model.layers.70.post_attention_layernorm\",\"model.layers.71.input_layernorm\",\"model.layers.71.mlp.gate\",\"model.layers.71.post_attention_layernorm\",\"model.layers.72.input_layernorm\",\"model.layers.72.mlp.gate\",\"model.layers.72.post_attention_layernorm\",\"model.layers.73.input_layernorm\",\"model.layers.73.mlp.gate\",\"model.layers.73.post_attention_layernorm\",\"model.layers.74.input_layernorm\",\"model.layers.74.mlp.gate\",\"model.layers.74.post_attention_layernorm\",\"model.layers.75.input_layernorm\",\"model.layers.75.mlp.gate\",\"model.layers.75.post_attention_layernorm\",\"model.layers.76.input_layernorm\",\"model.layers.76.mlp.gate\",\"model.layers.76.post_attention_layernorm\",\"model.layers.77.input_layernorm\",\"model.layers.77.mlp.gate\",\"model.layers.77.post_attention_layernorm\",\"model.layers.78.input_layernorm\",\"model.layers.78.mlp.gate\",\"model.layers.78.post_attention_layernorm\",\"model.layers.79.input_layernorm\",\"model.layers.79.mlp.gate\",\"model.layers.79.post_attention_layernorm\",\"model.layers.80.input_layernorm\",\"model.layers.80.mlp.gate\",\"model.layers.80.post_attention_layernorm\",\"model.layers.81.input_layernorm\",\"model.layers.81.mlp.gate\",\"model.layers.81.post_attention_layernorm\",\"model.layers.82.input_layernorm\",\"model.layers.82.mlp.gate\",\"model.layers.82.post_attention_layernorm\",\"model.layers.83.input_layernorm\",\"model.layers.83.mlp.gate\",\"model.layers.83.post_attention_layernorm\",\"model.layers.84.input_layernorm\",\"model.layers.84.mlp.gate\",\"model.layers.84.post_attention_layernorm\",\"model.layers.85.input_layernorm\",\"model.layers.85.mlp.gate\",\"model.layers.85.post_attention_layernorm\",\"model.layers.86.input_layernorm\",\"model.layers.86.mlp.gate\",\"model.layers.86.post_attention_layernorm\",\"model.layers.87.input_layernorm\",\"model.layers.87.mlp.gate\",\"model.layers.87.post_attention_layernorm\",\"model.layers.88.input_layernorm\",\"model.layers.88.mlp.gate\",\"model.layers.88.post_attention_layernorm\",\"model.layers.89.input_layernorm\",\"model.layers.89.mlp.gate\",\"model.layers.89.post_attention_layernorm\",\"model.layers.90.input_layernorm\",\"model.layers.90.mlp.gate\",\"model.layers.90.post_attention_layernorm\",\"model.layers.91.input_layernorm\",\"model.layers.91.mlp.gate\",\"model.layers.91.post_attention_layernorm\",\"model.layers.92.input_layernorm\",\"model.layers.92.mlp.gate\",\"model.layers.92.post_attention_layernorm\",\"model.layers.93.input_layernorm\",\"model.layers.93.mlp.gate\",\"model.layers.93.post_attention_layernorm\"],\"quant_method\":\"fp8\",\"weight_block_size\":[128,128]},\"rms_norm_eps\":1e-6,\"rope_theta\":1000000.0,\"router_aux_loss_coef\":0.001,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.51.0\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "jamba-1.5-mini" => crate :: presets :: ModelFile { id : "jamba-1.5-mini" . to_owned () , name : "AI21-Jamba-1.5-Mini" . to_owned () , hf_repo : Some ("ai21labs/AI21-Jamba-1.5-Mini" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (51600000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"JambaForCausalLM\"],\"attention_dropout\":0.0,\"attn_layer_offset\":4,\"attn_layer_period\":8,\"bos_token_id\":1,\"eos_token_id\":[2,518],\"expert_layer_offset\":1,\"expert_layer_period\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,\"intermediate_size\":14336,\"mamba_conv_bias\":true,\"mamba_d_conv\":4,\"mamba_d_state\":16,\"mamba_dt_rank\":256,\"mamba_expand\":2,\"mamba_proj_bias\":false,\"max_position_embeddings\":262144,\"model_type\":\"jamba\",\"num_attention_heads\":32,\"num_experts\":16,\"num_experts_per_tok\":2,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"num_logits_to_keep\":1,\"output_router_logits\":false,\"pad_token_id\":0,\"rms_norm_eps\":1e-6,\"router_aux_loss_coef\":0.001,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.40.2\",\"use_cache\":true,\"vocab_size\":65536}")) , quantization : None , notes : None , } , "qwen3-next-80b-a3b" => crate :: presets :: ModelFile { id : "qwen3-next-80b-a3b" . to_owned () , name : "Qwen3-Next-80B-A3B" . to_owned () , hf_repo : Some ("Qwen/Qwen3-Next-80B-A3B-Instruct" . to_owned ()) , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3NextForCausalLM\"],\"attention_dropout\":0.0,\"bos_token_id\":151643,\"decoder_sparse_step\":1,\"eos_token_id\":151645,\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":5120,\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_value_heads\":32,\"linear_value_head_dim\":128,\"max_position_embeddings\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_next\",\"moe_intermediate_size\":512,\"norm_topk_prob\":true,\"num_attention_heads\":16,\"num_experts\":512,\"num_experts_per_tok\":10,\"num_hidden_layers\":48,\"num_key_value_heads\":2,\"output_router_logits\":false,\"partial_rotary_factor\":0.25,\"rms_norm_eps\":1e-6,\"rope_theta\":10000000,\"router_aux_loss_coef\":0.001,\"shared_expert_intermediate_size\":512,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.57.0.dev0\",\"use_cache\":true,\"use_sliding_window\":false,\"vocab_size\":151936}")) , quantization : None , notes : None , } , "qwen3.8-27b-uncensored-nvfp4-v3" => crate :: presets :: ModelFile { id : "qwen3.8-27b-uncensored-nvfp4-v3" . to_owned () , name : "Qwen3.8-27B-Uncensored NVFP4 W4A4 (tsarihan v3 recipe)" . to_owned () , hf_repo : None , source : "" . to_owned () , base : None , published_params : None , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"Qwen3_5ForConditionalGeneration\"],\"dtype\":\"bfloat16\",\"image_token_id\":248056,\"language_model_only\":false,\"model_type\":\"qwen3_5\",\"text_config\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_output_gate\":true,\"bos_token_id\":248044,\"dtype\":\"bfloat16\",\"eos_token_id\":248044,\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_size\":17408,\"layer_types\":[\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\",\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\"],\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_value_heads\":48,\"linear_value_head_dim\":128,\"mamba_ssm_dtype\":\"float32\",\"max_position_embeddings\":262144,\"model_type\":\"qwen3_5_text\",\"mtp_num_hidden_layers\":1,\"mtp_use_dedicated_embeddings\":false,\"num_attention_heads\":24,\"num_hidden_layers\":64,\"num_key_value_heads\":4,\"output_gate_type\":\"swish\",\"partial_rotary_factor\":0.25,\"rms_norm_eps\":1e-6,\"rope_parameters\":{\"mrope_interleaved\":true,\"mrope_section\":[11,11,10],\"partial_rotary_factor\":0.25,\"rope_theta\":10000000,\"rope_type\":\"default\"},\"tie_word_embeddings\":false,\"use_cache\":true,\"vocab_size\":248320},\"tie_word_embeddings\":false,\"transformers_version\":\"5.7.0\",\"video_token_id\":248057,\"vision_config\":{\"deepstack_visual_indexes\":[],\"depth\":27,\"dtype\":\"bfloat16\",\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1152,\"in_channels\":3,\"initializer_range\":0.02,\"intermediate_size\":4304,\"model_type\":\"qwen3_5_vision\",\"num_heads\":16,\"num_position_embeddings\":2304,\"out_hidden_size\":5120,\"patch_size\":16,\"spatial_merge_size\":2,\"temporal_patch_size\":2},\"vision_end_token_id\":248054,\"vision_start_token_id\":248053}")) , quantization : Some (crate :: quant :: WeightQuant { method : crate :: quant :: QuantMethod :: Nvfp4 , bits : 4u64 , group_size : None , zero_point : false , unquantized : alloc :: vec ! ["mtp" . to_owned () , "in_proj_ba" . to_owned () ,] , lm_head_quantized : true , block : None , per_tensor : false , fp8_kinds : alloc :: vec ! ["attention" . to_owned () , "mamba" . to_owned () , "lm_head" . to_owned () ,] , fp8_layers : alloc :: vec ! [crate :: quant :: Fp8Layers { kind : "mlp" . to_owned () , first : 56u64 , last : 63u64 } ,] , double_quant : false , release : None }) , notes : None , } , "deepseek-v3" => crate :: presets :: ModelFile { id : "deepseek-v3" . to_owned () , name : "DeepSeek-V3" . to_owned () , hf_repo : Some ("deepseek-ai/DeepSeek-V3" . to_owned ()) , source : "" . to_owned () , base : None , published_params : Some (671000000000f64) , checkpoint_bytes : None , config : Some (crate :: presets :: config_object ("{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"bos_token_id\":0,\"eos_token_id\":1,\"ep_size\":1,\"first_k_dense_replace\":3,\"hidden_act\":\"silu\",\"hidden_size\":7168,\"initializer_range\":0.02,\"intermediate_size\":18432,\"kv_lora_rank\":512,\"max_position_embeddings\":163840,\"model_type\":\"deepseek_v3\",\"moe_intermediate_size\":2048,\"moe_layer_freq\":1,\"n_group\":8,\"n_routed_experts\":256,\"n_shared_experts\":1,\"norm_topk_prob\":true,\"num_attention_heads\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,\"num_key_value_heads\":128,\"num_nextn_predict_layers\":1,\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"quantization_config\":{\"activation_scheme\":\"dynamic\",\"fmt\":\"e4m3\",\"quant_method\":\"fp8\",\"weight_block_size\":[128,128]},\"rms_norm_eps\":1e-6,\"rope_scaling\":{\"beta_fast\":32,\"beta_slow\":1,\"factor\":40,\"mscale\":1.0,\"mscale_all_dim\":1.0,\"original_max_position_embeddings\":4096,\"type\":\"yarn\"},\"rope_theta\":10000,\"routed_scaling_factor\":2.5,\"scoring_func\":\"sigmoid\",\"tie_word_embeddings\":false,\"topk_group\":4,\"topk_method\":\"noaux_tc\",\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.33.1\",\"use_cache\":true,\"v_head_dim\":128,\"vocab_size\":129280}")) , quantization : None , notes : None , } , _ => return None , })
}
pub(super) fn scenario(id: &str) -> Option<crate::scenario::ScenarioFile> {
    Some (match id { "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32" => crate :: scenario :: ScenarioFile { id : "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32" . to_owned () , description : Some ("NVIDIA-Nemotron-Nano-12B-v2 AWQ 4-bit on an RTX 3090, vLLM 0.32.0, int4 per-token-head KV cache" . to_owned ()) , model : "nemotron-nano-12b-v2-awq4" . to_owned () , gpu : "rtx3090" . to_owned () , vllm_version : Some ("0.32.0" . to_owned ()) , launch : Some ("vllm serve cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit --max-model-len 131072 --gpu-memory-utilization 0.94 --max-num-seqs 128 --enable-prefix-caching --trust-remote-code --kv-cache-dtype int4_per_token_head --attention-backend TRITON_ATTN" . to_owned ()) , measured : Some ("rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32" . to_owned ()) , calibration : Some ("ampere-geforce" . to_owned ()) , engine : crate :: flags :: EngineSettings { quantization : None , kv_cache_dtype : Some ("int4_per_token_head" . to_owned ()) , gpu_memory_utilization : Some (0.94f64) , max_model_len : Some (131072i64) , max_num_seqs : Some (128i64) , max_num_batched_tokens : None , enable_prefix_caching : Some (true) , block_size : None , mamba_ssm_cache_dtype : None , mamba_cache_dtype : None , attention_backend : Some ("TRITON_ATTN" . to_owned ()) , kv_cache_memory_bytes : None , tensor_parallel_size : None , dtype : None , pipeline_parallel_size : None , data_parallel_size : None , data_parallel_size_local : None , enable_expert_parallel : None , async_scheduling : None , hf_overrides : None , swap_space : None , enforce_eager : None , disable_custom_all_reduce : None , max_seq_len_to_capture : None , limit_mm_per_prompt : None , language_model_only : None , skip_mm_profiling : None , speculative_config : None , spec_acceptance : None , vllm_version : None } , harness : crate :: harness :: HarnessSettings { contexts : Some (alloc :: vec ! [crate :: harness :: TokenCount :: Number (0i64) , crate :: harness :: TokenCount :: Text ("16K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("32K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("64K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("120K" . to_owned ()) ,]) , prefill_contexts : Some (alloc :: vec ! [crate :: harness :: TokenCount :: Text ("8K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("16K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("32K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("64K" . to_owned ()) , crate :: harness :: TokenCount :: Text ("120K" . to_owned ()) ,]) , concurrency : Some (alloc :: vec ! [1i64 , 2i64 , 4i64 , 8i64 , 16i64 , 32i64 , 64i64 , 128i64 ,]) , max_tokens : Some (8192i64) , window_s : Some (30f64) , prompt_scale : Some (1.00413f64) , prompt_extra_tokens : Some (164i64) , workload : None } , memory : Some (crate :: scenario :: MemoryPin { non_kv_bytes : 10951617332i64 , derivation : "back-solved from 67 running requests at context 0 x 128: num_blocks in [403, 408], pinned at 405.5 blocks" . to_owned () }) } , _ => return None , })
}
pub(super) fn calibration(id: &str) -> Option<crate::scenario::CalibrationFile> {
    Some(match id {
        "ada-datacenter" => crate::scenario::CalibrationFile {
            id: "ada-datacenter".to_owned(),
            class: "ada-datacenter".to_owned(),
            gpus: alloc::vec!["l4".to_owned(),],
            vllm_versions: alloc::vec!["0.23.0".to_owned(),],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 1u32,
                figures: 18u32,
                in_sample: alloc::vec![
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Tpot,
                        figures: 6u32,
                        mape_pct: 7.821536251031893f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Throughput,
                        figures: 6u32,
                        mape_pct: 8.203058164537984f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Ttft,
                        figures: 6u32,
                        mape_pct: 46.52472467343849f64
                    },
                ],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 7.565327401023804f64,
                            median_abs_pct: 7.588184864742542f64,
                            p90_abs_pct: 11.875854804651087f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 10.092221898414099f64,
                            median_abs_pct: 10.092221898414099f64,
                            p90_abs_pct: 10.092221898414099f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 7.059948501545745f64,
                            median_abs_pct: 6.8806480319225205f64,
                            p90_abs_pct: 11.51398130555787f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 8.842415603614603f64,
                            median_abs_pct: 4.97964220312368f64,
                            p90_abs_pct: 19.502513113108918f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 3.5975934966098855f64,
                            median_abs_pct: 3.5975934966098855f64,
                            p90_abs_pct: 3.5975934966098855f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 9.891380025015545f64,
                            median_abs_pct: 6.361690909637474f64,
                            p90_abs_pct: 20.815875440639395f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 52.95625697887115f64,
                            median_abs_pct: 58.075445721140724f64,
                            p90_abs_pct: 79.31708348027584f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 17.1145586781279f64,
                            median_abs_pct: 17.1145586781279f64,
                            p90_abs_pct: 17.1145586781279f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 60.1245966390198f64,
                            median_abs_pct: 61.91047330674033f64,
                            p90_abs_pct: 79.76325242057288f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 5.9761194742218215f64,
                            median_abs_pct: 5.006544963855292f64,
                            p90_abs_pct: 11.291753670012163f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 5.9502657832464445f64,
                            median_abs_pct: 5.9502657832464445f64,
                            p90_abs_pct: 5.9502657832464445f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 5.981290212416897f64,
                            median_abs_pct: 4.233418584609638f64,
                            p90_abs_pct: 12.291813471307107f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 10.988718500858653f64,
                            median_abs_pct: 6.836468695510933f64,
                            p90_abs_pct: 23.854940054702155f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 7.637455169514484f64,
                            median_abs_pct: 7.637455169514484f64,
                            p90_abs_pct: 7.637455169514484f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 11.658971167127484f64,
                            median_abs_pct: 6.035482221507382f64,
                            p90_abs_pct: 25.19630800994622f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 54.64963717945394f64,
                            median_abs_pct: 59.601300874062254f64,
                            p90_abs_pct: 80.03833430120818f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 19.98645118955714f64,
                            median_abs_pct: 19.98645118955714f64,
                            p90_abs_pct: 19.98645118955714f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 61.58227437743329f64,
                            median_abs_pct: 63.29792658669863f64,
                            p90_abs_pct: 80.46594819422847f64
                        }
                    },
                ],
            },
        },
        "ada-geforce" => crate::scenario::CalibrationFile {
            id: "ada-geforce".to_owned(),
            class: "ada-geforce".to_owned(),
            gpus: alloc::vec!["rtx4090".to_owned(),],
            vllm_versions: alloc::vec!["0.8.5".to_owned(),],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 2u32,
                figures: 15u32,
                in_sample: alloc::vec![
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Tpot,
                        figures: 6u32,
                        mape_pct: 12.30904650597473f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Throughput,
                        figures: 3u32,
                        mape_pct: 6.221796868614308f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Ttft,
                        figures: 6u32,
                        mape_pct: 24.531858782751637f64
                    },
                ],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 11.534311273064304f64,
                            median_abs_pct: 13.78346556331218f64,
                            p90_abs_pct: 16.550179539451428f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 11.534311273064304f64,
                            median_abs_pct: 13.78346556331218f64,
                            p90_abs_pct: 16.550179539451428f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 6.25733743157035f64,
                            median_abs_pct: 4.724393210725431f64,
                            p90_abs_pct: 8.751219775472359f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 6.25733743157035f64,
                            median_abs_pct: 4.724393210725431f64,
                            p90_abs_pct: 8.751219775472359f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 36.751180259315284f64,
                            median_abs_pct: 37.97600623090898f64,
                            p90_abs_pct: 48.297381948508246f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 36.751180259315284f64,
                            median_abs_pct: 37.97600623090898f64,
                            p90_abs_pct: 48.297381948508246f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 10.469923913184786f64,
                            median_abs_pct: 12.908534158364859f64,
                            p90_abs_pct: 14.36541707099539f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 10.469923913184786f64,
                            median_abs_pct: 12.908534158364859f64,
                            p90_abs_pct: 14.36541707099539f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 6.2639121045020305f64,
                            median_abs_pct: 4.697119281183326f64,
                            p90_abs_pct: 8.791271158331355f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 6.2639121045020305f64,
                            median_abs_pct: 4.697119281183326f64,
                            p90_abs_pct: 8.791271158331355f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 46.43835060329693f64,
                            median_abs_pct: 36.76767845170736f64,
                            p90_abs_pct: 82.38256765728036f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 6u32,
                            mape_pct: 46.43835060329693f64,
                            median_abs_pct: 36.76767845170736f64,
                            p90_abs_pct: 82.38256765728036f64
                        }
                    },
                ],
            },
        },
        "ampere-datacenter" => crate::scenario::CalibrationFile {
            id: "ampere-datacenter".to_owned(),
            class: "ampere-datacenter".to_owned(),
            gpus: alloc::vec!["a100-80gb".to_owned(),],
            vllm_versions: alloc::vec!["0.6.2".to_owned(), "0.6.3".to_owned(),],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 65u32,
                figures: 147u32,
                in_sample: alloc::vec![crate::bands::InSample {
                    figure: crate::bands::Figure::Tpot,
                    figures: 147u32,
                    mape_pct: 6.609674569521273f64
                },],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 147u32,
                            mape_pct: 9.419086854525755f64,
                            median_abs_pct: 7.779967989162884f64,
                            p90_abs_pct: 17.030959783694033f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 59u32,
                            mape_pct: 8.468902692468095f64,
                            median_abs_pct: 6.528890573359147f64,
                            p90_abs_pct: 15.432088961558932f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 88u32,
                            mape_pct: 10.056142144996222f64,
                            median_abs_pct: 9.112477296638938f64,
                            p90_abs_pct: 17.850568175096832f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 147u32,
                            mape_pct: 9.643974816022002f64,
                            median_abs_pct: 8.38926859833955f64,
                            p90_abs_pct: 17.472332218001856f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 59u32,
                            mape_pct: 8.702083861736995f64,
                            median_abs_pct: 6.385480019775603f64,
                            p90_abs_pct: 16.0528317950328f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 88u32,
                            mape_pct: 10.275469887644904f64,
                            median_abs_pct: 9.344852837715173f64,
                            p90_abs_pct: 17.96617697653537f64
                        }
                    },
                ],
            },
        },
        "ampere-geforce" => crate::scenario::CalibrationFile {
            id: "ampere-geforce".to_owned(),
            class: "ampere-geforce".to_owned(),
            gpus: alloc::vec!["rtx3090".to_owned(),],
            vllm_versions: alloc::vec!["0.32.0".to_owned(),],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9577619390320687f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.6988400596215966f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.21378822684692647f64,
                attn_half_batch: 1.041702997720535f64,
                prefill_gemm_eff: 0.6860848634061798f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.08789361473727994f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9577619390320687f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.6988400596215966f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.21378822684692647f64,
                attn_half_batch: 1.041702997720535f64,
                prefill_gemm_eff: 0.6860848634061798f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.08789361473727994f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 1u32,
                figures: 89u32,
                in_sample: alloc::vec![
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Tpot,
                        figures: 28u32,
                        mape_pct: 2.400232739684349f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Throughput,
                        figures: 28u32,
                        mape_pct: 2.4432370918908837f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Ttft,
                        figures: 28u32,
                        mape_pct: 4.872642284266489f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Prefill,
                        figures: 5u32,
                        mape_pct: 1.9934074582599925f64
                    },
                ],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 7.716906373686732f64,
                            median_abs_pct: 7.173657366687075f64,
                            p90_abs_pct: 12.563750581414935f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 12.68443087353559f64,
                            median_abs_pct: 12.68443087353559f64,
                            p90_abs_pct: 12.68443087353559f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 9.021993540195222f64,
                            median_abs_pct: 9.227706137595426f64,
                            p90_abs_pct: 10.626441563063963f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 9.20163531014413f64,
                            median_abs_pct: 9.70960861958099f64,
                            p90_abs_pct: 13.95929176816702f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 6.430595391118943f64,
                            median_abs_pct: 5.994711088301452f64,
                            p90_abs_pct: 11.45725562843533f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 6.474955075264758f64,
                            median_abs_pct: 6.191016033671904f64,
                            p90_abs_pct: 9.996892144861542f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 11.12506085507513f64,
                            median_abs_pct: 11.12506085507513f64,
                            p90_abs_pct: 11.12506085507513f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 8.100457067421422f64,
                            median_abs_pct: 8.231607859535732f64,
                            p90_abs_pct: 9.531667236853202f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 9.139616574435108f64,
                            median_abs_pct: 8.102434986758954f64,
                            p90_abs_pct: 15.516318230383227f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 4.612158560100417f64,
                            median_abs_pct: 4.4378136210674155f64,
                            p90_abs_pct: 8.491928070349752f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 20.89069502009071f64,
                            median_abs_pct: 18.30362407558892f64,
                            p90_abs_pct: 35.954905693340216f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 14.215801472238777f64,
                            median_abs_pct: 14.215801472238777f64,
                            p90_abs_pct: 14.215801472238777f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 23.431232094431387f64,
                            median_abs_pct: 23.323253909476136f64,
                            p90_abs_pct: 34.17593920499592f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 20.869682433919696f64,
                            median_abs_pct: 24.060259294823982f64,
                            p90_abs_pct: 39.624851473371905f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 20.681934604696117f64,
                            median_abs_pct: 17.7516119762654f64,
                            p90_abs_pct: 34.5422837958477f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 7.716906373686732f64,
                            median_abs_pct: 7.173657366687075f64,
                            p90_abs_pct: 12.563750581414935f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 12.68443087353559f64,
                            median_abs_pct: 12.68443087353559f64,
                            p90_abs_pct: 12.68443087353559f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 9.021993540195222f64,
                            median_abs_pct: 9.227706137595426f64,
                            p90_abs_pct: 10.626441563063963f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 9.20163531014413f64,
                            median_abs_pct: 9.70960861958099f64,
                            p90_abs_pct: 13.95929176816702f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 6.430595391118943f64,
                            median_abs_pct: 5.994711088301452f64,
                            p90_abs_pct: 11.45725562843533f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 6.474955075264758f64,
                            median_abs_pct: 6.191016033671904f64,
                            p90_abs_pct: 9.996892144861542f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 11.12506085507513f64,
                            median_abs_pct: 11.12506085507513f64,
                            p90_abs_pct: 11.12506085507513f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 8.100457067421422f64,
                            median_abs_pct: 8.231607859535732f64,
                            p90_abs_pct: 9.531667236853202f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 9.139616574435108f64,
                            median_abs_pct: 8.102434986758954f64,
                            p90_abs_pct: 15.516318230383227f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 4.612158560100417f64,
                            median_abs_pct: 4.4378136210674155f64,
                            p90_abs_pct: 8.491928070349752f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 28u32,
                            mape_pct: 20.89069502009071f64,
                            median_abs_pct: 18.30362407558892f64,
                            p90_abs_pct: 35.954905693340216f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 14.215801472238777f64,
                            median_abs_pct: 14.215801472238777f64,
                            p90_abs_pct: 14.215801472238777f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 23.431232094431387f64,
                            median_abs_pct: 23.323253909476136f64,
                            p90_abs_pct: 34.17593920499592f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 7u32,
                            mape_pct: 20.869682433919696f64,
                            median_abs_pct: 24.060259294823982f64,
                            p90_abs_pct: 39.624851473371905f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 20.681934604696117f64,
                            median_abs_pct: 17.7516119762654f64,
                            p90_abs_pct: 34.5422837958477f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                ],
            },
        },
        "hopper" => crate::scenario::CalibrationFile {
            id: "hopper".to_owned(),
            class: "hopper".to_owned(),
            gpus: alloc::vec!["h100-pcie".to_owned(), "h100-sxm".to_owned(),],
            vllm_versions: alloc::vec!["0.8.5".to_owned(), "0.11.0".to_owned(),],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 7u32,
                figures: 52u32,
                in_sample: alloc::vec![
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Tpot,
                        figures: 20u32,
                        mape_pct: 6.884985600362432f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Throughput,
                        figures: 12u32,
                        mape_pct: 4.408145218588124f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Ttft,
                        figures: 20u32,
                        mape_pct: 43.687982519216334f64
                    },
                ],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 20u32,
                            mape_pct: 7.639206352128129f64,
                            median_abs_pct: 4.711077787481988f64,
                            p90_abs_pct: 15.169980350917387f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 8.251756152435696f64,
                            median_abs_pct: 8.251756152435696f64,
                            p90_abs_pct: 8.251756152435696f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 19u32,
                            mape_pct: 7.606966888954045f64,
                            median_abs_pct: 3.9429534409253897f64,
                            p90_abs_pct: 15.711755764385101f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 12u32,
                            mape_pct: 4.646398653876421f64,
                            median_abs_pct: 3.183124506449703f64,
                            p90_abs_pct: 5.102861434808387f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 5.177870500029613f64,
                            median_abs_pct: 5.177870500029613f64,
                            p90_abs_pct: 5.177870500029613f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 11u32,
                            mape_pct: 4.5980830314988586f64,
                            median_abs_pct: 2.6878760795174927f64,
                            p90_abs_pct: 4.427779847817359f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 20u32,
                            mape_pct: 58.013858809353884f64,
                            median_abs_pct: 59.11040546719504f64,
                            p90_abs_pct: 122.51160410683424f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 65.2989442178244f64,
                            median_abs_pct: 65.2989442178244f64,
                            p90_abs_pct: 65.2989442178244f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveFamilyOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 19u32,
                            mape_pct: 57.63043326153965f64,
                            median_abs_pct: 57.95066296909614f64,
                            p90_abs_pct: 122.53443257674283f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 20u32,
                            mape_pct: 7.363291672498859f64,
                            median_abs_pct: 4.00843583969766f64,
                            p90_abs_pct: 16.910666947998198f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 8.251756152435696f64,
                            median_abs_pct: 8.251756152435696f64,
                            p90_abs_pct: 8.251756152435696f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 19u32,
                            mape_pct: 7.316530384081131f64,
                            median_abs_pct: 2.5376695453567355f64,
                            p90_abs_pct: 17.444268861413526f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 12u32,
                            mape_pct: 4.676087670585362f64,
                            median_abs_pct: 3.20862140763904f64,
                            p90_abs_pct: 5.099260052999694f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 5.177870500029613f64,
                            median_abs_pct: 5.177870500029613f64,
                            p90_abs_pct: 5.177870500029613f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 11u32,
                            mape_pct: 4.630471049726794f64,
                            median_abs_pct: 2.6878760795174927f64,
                            p90_abs_pct: 4.391766029730415f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 20u32,
                            mape_pct: 66.10728664571823f64,
                            median_abs_pct: 61.85585505484552f64,
                            p90_abs_pct: 119.36982757289726f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 1u32,
                            mape_pct: 65.2989442178244f64,
                            median_abs_pct: 65.2989442178244f64,
                            p90_abs_pct: 65.2989442178244f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveGpuOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 19u32,
                            mape_pct: 66.14983098402844f64,
                            median_abs_pct: 61.652363906235365f64,
                            p90_abs_pct: 119.39947777459636f64
                        }
                    },
                ],
            },
        },
        "shared" => crate::scenario::CalibrationFile {
            id: "shared".to_owned(),
            class: "shared".to_owned(),
            gpus: alloc::vec![],
            vllm_versions: alloc::vec![
                "0.6.2".to_owned(),
                "0.6.3".to_owned(),
                "0.8.5".to_owned(),
                "0.11.0".to_owned(),
                "0.23.0".to_owned(),
                "0.32.0".to_owned(),
            ],
            description: "".to_owned(),
            fitted_on: alloc::vec![],
            runs: alloc::vec![],
            moe_runs: 0u32,
            command: "".to_owned(),
            params: crate::timing::TimingParams {
                host_step_ms: 0.43876558622466094f64,
                host_per_seq_us: 34.95179743856402f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 18.622937549193246f64,
                layer_us: 11.289107850272343f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            },
            v0_params: Some(crate::timing::TimingParams {
                host_step_ms: 1.1839246199563316f64,
                host_per_seq_us: 28.725463496897426f64,
                weight_bw_eff: 0.8f64,
                quant_weight_bw_eff: 0.9206022200553632f64,
                fp8_weight_bw_eff: 0.8f64,
                gemm_compute_eff: 0.5f64,
                state_bw_eff: 0.7326398482119132f64,
                attn_bw_eff_flash: 0.6f64,
                attn_bw_eff_triton: 0.22446343574850708f64,
                attn_half_batch: 1.0301166187691957f64,
                prefill_gemm_eff: 0.6605566204392714f64,
                prefill_attn_eff_flash: 0.4f64,
                prefill_attn_eff_triton: 0.10369236783567248f64,
                serve_request_ms: 17.636246985990837f64,
                layer_us: 11.390714515180472f64,
                quant_gemm_floor_us: 7.6000000000000005f64,
                eager_layer_us: 30.000000000000004f64,
            }),
            fit: crate::bands::FitSummary {
                runs: 76u32,
                figures: 321u32,
                in_sample: alloc::vec![
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Tpot,
                        figures: 207u32,
                        mape_pct: 6.267207183478636f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Throughput,
                        figures: 49u32,
                        mape_pct: 3.861063689572919f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Ttft,
                        figures: 60u32,
                        mape_pct: 23.942218918015485f64
                    },
                    crate::bands::InSample {
                        figure: crate::bands::Figure::Prefill,
                        figures: 5u32,
                        mape_pct: 1.9934074582599925f64
                    },
                ],
                bands: alloc::vec![
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 207u32,
                            mape_pct: 9.259566845369454f64,
                            median_abs_pct: 7.015600573764047f64,
                            p90_abs_pct: 17.308479833993236f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 62u32,
                            mape_pct: 8.663579444609786f64,
                            median_abs_pct: 6.167872901511023f64,
                            p90_abs_pct: 16.020458055508747f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 92u32,
                            mape_pct: 10.220970916016658f64,
                            median_abs_pct: 9.344852837715173f64,
                            p90_abs_pct: 17.869430401446127f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 37u32,
                            mape_pct: 9.091069213357695f64,
                            median_abs_pct: 5.973577987633039f64,
                            p90_abs_pct: 17.772906039177798f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 6.430595391118943f64,
                            median_abs_pct: 5.994711088301452f64,
                            p90_abs_pct: 11.45725562843533f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 49u32,
                            mape_pct: 7.293122121604123f64,
                            median_abs_pct: 6.0371758581882595f64,
                            p90_abs_pct: 13.259254198629172f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 8.56276137519076f64,
                            median_abs_pct: 7.637455169514484f64,
                            p90_abs_pct: 10.427539717963f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 8.100457067421422f64,
                            median_abs_pct: 8.231607859535732f64,
                            p90_abs_pct: 9.531667236853202f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 26u32,
                            mape_pct: 8.67224363852836f64,
                            median_abs_pct: 5.536516748673225f64,
                            p90_abs_pct: 20.06555165084697f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Throughput,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 4.612158560100417f64,
                            median_abs_pct: 4.4378136210674155f64,
                            p90_abs_pct: 8.491928070349752f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 60u32,
                            mape_pct: 38.9794869854547f64,
                            median_abs_pct: 28.45957020499953f64,
                            p90_abs_pct: 84.98230980257402f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 3u32,
                            mape_pct: 24.684775649147173f64,
                            median_abs_pct: 19.98645118955714f64,
                            p90_abs_pct: 35.87894966642791f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 4u32,
                            mape_pct: 23.431232094431387f64,
                            median_abs_pct: 23.323253909476136f64,
                            p90_abs_pct: 34.17593920499592f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 37u32,
                            mape_pct: 49.731865138566945f64,
                            median_abs_pct: 42.19690661961175f64,
                            p90_abs_pct: 111.32659278565832f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 16u32,
                            mape_pct: 20.681934604696117f64,
                            median_abs_pct: 17.7516119762654f64,
                            p90_abs_pct: 34.5422837958477f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Prefill,
                        hold_out: crate::bands::HoldOut::LeaveClassOut,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 13.85936168688591f64,
                            median_abs_pct: 11.340387667825524f64,
                            p90_abs_pct: 27.896874441233056f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 581u32,
                            mape_pct: 30.34612605716373f64,
                            median_abs_pct: 20.594667971822588f64,
                            p90_abs_pct: 51.00153764775113f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 24.77840022812446f64,
                            median_abs_pct: 19.29438546866188f64,
                            p90_abs_pct: 47.519725778281426f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 2u32,
                            mape_pct: 15.366038479660315f64,
                            median_abs_pct: 15.366038479660315f64,
                            p90_abs_pct: 23.570583395540275f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 382u32,
                            mape_pct: 28.809637730294124f64,
                            median_abs_pct: 22.956592308861616f64,
                            p90_abs_pct: 53.63296258673465f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Tpot,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 192u32,
                            mape_pct: 33.70413306322834f64,
                            median_abs_pct: 18.16003899232726f64,
                            p90_abs_pct: 37.297118249801024f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: None,
                        stats: crate::bands::ErrorStats {
                            figures: 581u32,
                            mape_pct: 45.1232114271074f64,
                            median_abs_pct: 37.373868733957295f64,
                            p90_abs_pct: 88.12938016634587f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::Batch1Short),
                        stats: crate::bands::ErrorStats {
                            figures: 5u32,
                            mape_pct: 46.96911043643607f64,
                            median_abs_pct: 42.62333795406208f64,
                            p90_abs_pct: 58.364545212354386f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::Batch1Long),
                        stats: crate::bands::ErrorStats {
                            figures: 2u32,
                            mape_pct: 18.104360398335245f64,
                            median_abs_pct: 18.104360398335245f64,
                            p90_abs_pct: 24.52812210479386f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::BatchedShort),
                        stats: crate::bands::ErrorStats {
                            figures: 382u32,
                            mape_pct: 38.99374192723011f64,
                            median_abs_pct: 33.67759685193464f64,
                            p90_abs_pct: 81.7089715376577f64
                        }
                    },
                    crate::bands::BandRecord {
                        figure: crate::bands::Figure::Ttft,
                        hold_out: crate::bands::HoldOut::UnfittedMoeRuns,
                        regime: Some(crate::bands::Regime::BatchedLong),
                        stats: crate::bands::ErrorStats {
                            figures: 192u32,
                            mape_pct: 57.55167786441999f64,
                            median_abs_pct: 49.71047655465393f64,
                            p90_abs_pct: 98.03089616953605f64
                        }
                    },
                ],
            },
        },
        _ => return None,
    })
}
pub(super) fn prices(id: &str) -> Option<crate::rank::Prices> {
    Some (match id { "on-demand" => crate :: rank :: Prices { source : "estimates of typical on-demand cloud/marketplace rates, not read from a live price list; h100-nvl and gb200 read from public pages" . to_owned () , date : "2026-11" . to_owned () , usd_per_hour : crate :: rank :: GpuPrices (alloc :: vec ! [("rtx3090" . to_owned () , 0.22f64) , ("rtx3090-ti" . to_owned () , 0.27f64) , ("rtx4090" . to_owned () , 0.35f64) , ("rtx5090" . to_owned () , 0.65f64) , ("rtx-a6000" . to_owned () , 0.5f64) , ("rtx6000-ada" . to_owned () , 0.8f64) , ("l4" . to_owned () , 0.45f64) , ("l40s" . to_owned () , 0.9f64) , ("a10" . to_owned () , 0.6f64) , ("a40" . to_owned () , 0.45f64) , ("a100-40gb" . to_owned () , 1.2f64) , ("a100-80gb" . to_owned () , 1.5f64) , ("a100-80gb-pcie" . to_owned () , 1.4f64) , ("h100-sxm" . to_owned () , 2.5f64) , ("h100-pcie" . to_owned () , 2.1f64) , ("h100-nvl" . to_owned () , 3.07f64) , ("h200" . to_owned () , 3.5f64) , ("b200" . to_owned () , 5.5f64) , ("gb200" . to_owned () , 4.54f64) , ("mi300x" . to_owned () , 2.5f64) ,]) } , _ => return None , })
}
