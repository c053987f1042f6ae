// Stand-in for tile-opt in //third_party/sanity:filecheck_test. Prints
// "echo: <line>" for each non-comment, non-empty line of its input file;
// with --fail it prints "error: asked to fail" to stderr and exits 1.
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  std::string path;
  bool fail = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fail") {
      fail = true;
    } else {
      path = a;
    }
  }
  if (fail) {
    std::cerr << "error: asked to fail\n";
    return 1;
  }
  std::ifstream in(path);
  if (!in) {
    std::cerr << "error: cannot open '" << path << "'\n";
    return 1;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("//", 0) == 0) continue;
    std::cout << "echo: " << line << "\n";
  }
  return 0;
}
