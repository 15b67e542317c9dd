"""The model-level (protobuf) rewrites of the front end, one per module;
`onnxc.frontend.REWRITES` orders them."""
