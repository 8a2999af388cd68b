// Slurm's compressed hostlists and tasks-per-node lists, expanded as srun writes them.
#include "distributed/slurm_syntax.h"

#include <catch2/catch.hpp>

using namespace brisk;
using Catch::Contains;
using Hosts = std::vector<std::string>;

TEST_CASE("expand_hostlist: plain names, ranges with their zero padding, several groups") {
  CHECK(dist::expand_hostlist("gpu5", "V") == Hosts{"gpu5"});
  CHECK(dist::expand_hostlist("node[01-03,07],gpu5", "V") == Hosts{"node01", "node02", "node03", "node07", "gpu5"});
  CHECK(dist::expand_hostlist("n[8-11]", "V") == Hosts{"n8", "n9", "n10", "n11"});
  CHECK(dist::expand_hostlist("n[098-101]", "V") == Hosts{"n098", "n099", "n100", "n101"});
  CHECK(dist::expand_hostlist("a,b[2],c-x[1-2].ib", "V") == Hosts{"a", "b2", "c-x1.ib", "c-x2.ib"});
  CHECK(dist::expand_hostlist("rack[1-2]-n[1,3]", "V") == Hosts{"rack1-n1", "rack1-n3", "rack2-n1", "rack2-n3"});
}

TEST_CASE("expand_hostlist: what is not a hostlist is refused, naming the variable and the text") {
  CHECK_THROWS_WITH(dist::expand_hostlist("node[01-03", "SLURM_JOB_NODELIST"),
                    Contains("SLURM_JOB_NODELIST='node[01-03' is not a Slurm hostlist: '[' without ']'"));
  CHECK_THROWS_WITH(dist::expand_hostlist("node[3-1]", "V"), Contains("range '3-1' is not n or a-b with a <= b"));
  CHECK_THROWS_WITH(dist::expand_hostlist("node[a]", "V"), Contains("range 'a'"));
  CHECK_THROWS_WITH(dist::expand_hostlist("a,,b", "V"), Contains("an empty name"));
  CHECK_THROWS_WITH(dist::expand_hostlist("", "V"), Contains("an empty name"));
  CHECK_THROWS_WITH(dist::expand_hostlist("n[[1]]", "V"), Contains("unbalanced brackets"));
  CHECK_THROWS_WITH(dist::expand_hostlist("n1]", "V"), Contains("unbalanced brackets"));
  CHECK_THROWS_WITH(dist::expand_hostlist("n[1-99999999]", "V"), Contains("too many hosts"));
}

TEST_CASE("expand_tasks_per_node: counts, n(xk) repeats, in node order") {
  CHECK(dist::expand_tasks_per_node("4", "V") == std::vector<int>{4});
  CHECK(dist::expand_tasks_per_node("2(x3),1", "V") == std::vector<int>{2, 2, 2, 1});
  CHECK(dist::expand_tasks_per_node("1,8(x2),3", "V") == std::vector<int>{1, 8, 8, 3});
  CHECK_THROWS_WITH(dist::expand_tasks_per_node("2(x3", "SLURM_TASKS_PER_NODE"),
                    Contains("SLURM_TASKS_PER_NODE='2(x3' is not Slurm's tasks per node: '2(x3' is not n or n(xk)"));
  CHECK_THROWS_WITH(dist::expand_tasks_per_node("2(x0)", "V"), Contains("'2(x0)'"));
  CHECK_THROWS_WITH(dist::expand_tasks_per_node("two", "V"), Contains("'two'"));
  CHECK_THROWS_WITH(dist::expand_tasks_per_node("2,", "V"), Contains("''"));
}
