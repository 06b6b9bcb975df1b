#![doc = "Integration tests live in tests/."]
