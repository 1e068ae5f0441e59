# The layers of src/ (docs/DESIGN.md): for each folder, the folders its code may use. Each folder is one static
# library of the build (CMakeLists.txt: condlint_<folder>, linked to the libraries of the folders listed here), and
# cmake/check_layers.cmake fails the build on an include that goes outside the list. A new folder gets a line here
# and a row in DESIGN.md.
set(condlint_layer_folders model loaders rules exec onnx_graph export diff importers report lint cli)
set(layer_model      model)
set(layer_loaders    model loaders)
set(layer_rules      model rules)
set(layer_exec       model loaders rules exec)
set(layer_onnx_graph onnx_graph)
set(layer_export     model loaders exec onnx_graph export)
set(layer_diff       model loaders rules exec onnx_graph export diff)
set(layer_importers  model loaders importers)
set(layer_report     model loaders rules exec onnx_graph diff report)
set(layer_lint       model loaders rules exec report lint)
set(layer_cli        model loaders rules exec onnx_graph export diff importers report lint cli)
