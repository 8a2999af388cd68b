// Runners for matrix products.
#include "tests/reference/runners.h"

namespace brisk::reference {

void add_linalg_runners(RunnerTable& t) {
  t["matmul"] = {{"matmul(a, b)", BRISK_REF_RUN(matmul(in[0], in[1]))},
                 {"a.matmul(b)", BRISK_REF_RUN(in[0].matmul(in[1]))}};
  t["mm"] = {{"mm(a, b)", BRISK_REF_RUN(mm(in[0], in[1]))}, {"a.mm(b)", BRISK_REF_RUN(in[0].mm(in[1]))}};
  t["bmm"] = {{"bmm(a, b)", BRISK_REF_RUN(bmm(in[0], in[1]))}, {"a.bmm(b)", BRISK_REF_RUN(in[0].bmm(in[1]))}};
  t["addmm"] = {{"addmm(bias, a, b, beta, alpha)",
                 BRISK_REF_RUN(addmm(in[0], in[1], in[2], scalar(p, "beta"), scalar(p, "alpha")))}};
}

}  // namespace brisk::reference
