#include "parjava/frontend/model_builder.hpp"

#include "model_emitter.hpp"
#include "source_analysis.hpp"

namespace parjava::frontend {

BuildResult build_model(const BuildOptions &options) {
  std::unique_ptr<AnalysedSources> analysed = analyse_sources(options);
  EmittedModel emitted = emit_model(*analysed);
  BuildResult result;
  result.model = std::move(emitted.model);
  result.plan = std::move(emitted.plan);
  result.diagnostics = std::move(analysed->program.diagnostics);
  return result;
}

std::string describe_structure_of(const BuildOptions &options) {
  std::unique_ptr<AnalysedSources> analysed = analyse_sources(options);
  return describe_structure(analysed->program);
}

} // namespace parjava::frontend
