# The layers of src/ (docs/DESIGN.md): for each folder, the folders its code may use. Each folder is one static
# library of the build (CMakeLists.txt: condlint_<folder>, linked to the libraries of the folders listed here), and
# cmake/check_layers.cmake fails the build on an include that goes outside the list. A new folder gets a line here
# and a row in DESIGN.md.
set(condlint_layer_folders io model loaders rules exec onnx_graph export diff fix importers report lint cli)
set(layer_io         io)
set(layer_model      io model)
set(layer_loaders    io model loaders)
set(layer_rules      io model rules)
set(layer_exec       io model loaders rules exec)
set(layer_onnx_graph io model onnx_graph)
set(layer_export     io model loaders exec onnx_graph export)
set(layer_diff       io model loaders rules exec onnx_graph export diff)
set(layer_fix        io model loaders rules exec onnx_graph export diff fix)
set(layer_importers  io model loaders importers)
set(layer_report     io model loaders rules exec onnx_graph diff report)
set(layer_lint       io model loaders rules exec onnx_graph export diff report lint)
set(layer_cli        io model loaders rules exec onnx_graph export diff fix importers report lint cli)

# The folders that take the Model the front door (loaders/open_model) made and never open a model file or decide a
# format themselves: cmake/check_layers.cmake fails the build on a model reader called in them (load_file,
# open_model, a format loader, read_file, format_from_name, a ModelProto parsed, read_file_bytes on a model path).
set(condlint_no_model_reads exec export diff report)
