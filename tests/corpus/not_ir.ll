this is not LLVM IR
{ at all }
