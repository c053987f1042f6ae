// Checks that LLVM 16 (libLLVM-16.so) links and runs.
#include <string>

#include "gtest/gtest.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/raw_ostream.h"

TEST(LLVM, HostCPUName) {
  llvm::StringRef cpu = llvm::sys::getHostCPUName();
  EXPECT_FALSE(cpu.empty());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "cpu=" << cpu;
  os.flush();
  EXPECT_EQ(s.rfind("cpu=", 0), 0u);
  llvm::SmallVector<int, 4> v = {1, 2, 3};
  EXPECT_EQ(v.size(), 3u);
}
