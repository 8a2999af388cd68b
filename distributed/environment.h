#pragma once
// The launcher's environment variables (RANK, WORLD_SIZE, LOCAL_RANK and their SLURM and
// Open MPI spellings), read in one place for init_process_group and init_distributed.
#include <initializer_list>
#include <string>

namespace brisk::dist {

// The first of `names` that is set, parsed as a non-negative integer; -1 when none is set.
// `which` (when given) receives the variable's name. Raises brisk::Error naming `caller`, the
// variable and its value when the value is not such an integer.
int env_rank_value(const char* caller, std::initializer_list<const char*> names, std::string* which = nullptr);

}  // namespace brisk::dist
