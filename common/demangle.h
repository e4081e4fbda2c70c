/*
 * demangle: a C++ or Rust function name as its source spells it.
 *
 * The database keeps each symbol as the file names it (mangled), so SQL
 * on mangled names keeps working and nothing is lost; faultline demangles
 * when it prints (stacks, diagnose, export, plot).  The work is
 * libiberty's cplus_demangle, the demangler binutils and perf use: the
 * Itanium C++ ABI (_Z...), and Rust's legacy (_ZN...17h<hash>E, its hash
 * dropped) and v0 (_R...) manglings.  As perf prints by default, without
 * parameter types: "std::vector<int>::push_back", one name per function
 * in a flame graph.
 */
#ifndef FL_DEMANGLE_H
#define FL_DEMANGLE_H

/* sym demangled, malloc'd (the caller frees it); NULL when sym is not a
 * mangled C++ or Rust name, or out of memory: print sym itself then. */
char *demangle(const char *sym);

/* The name to print for sym: demangled into *owned (freed by the caller,
 * NULL when nothing was allocated), else sym itself (borrowed). */
const char *demangle_shown(const char *sym, char **owned);

#endif
