// version.h — what `gpusweep --version` prints: the project's version and the git
// revision it was configured from. Defined in a file generated at configure time
// (src/cli/version.cc.in), so a new revision recompiles that one file and relinks.
#pragma once

namespace gpusweep {

// "0.1.0"
const char* ProjectVersion();
// `git describe --always --dirty` of the source tree at configure time (e.g.
// "59e56e8-dirty"), or "unknown" when the source is not a git checkout.
const char* SourceRevision();

}  // namespace gpusweep
