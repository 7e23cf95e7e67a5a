// libFuzzer target: the experiment YAML loader (ParseConfig) and the config identity
// it stores in the journal. Any input must give a config or an Error: no crash, no
// sanitizer report, no hang, no unbounded memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpusweep/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  // A directory that does not exist: a template `src` cannot reach a real file.
  const auto config = gpusweep::ParseConfig(yaml, "/nonexistent-gpusweep-fuzz/sweep.yaml");
  if (config) {
    const gpusweep::Json identity = gpusweep::ConfigIdentity(*config);
    (void)gpusweep::DiffConfigIdentity(identity, identity);
  }
  return 0;
}
