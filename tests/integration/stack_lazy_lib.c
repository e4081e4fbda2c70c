/*
 * stack_lazy_lib: a shared library with many exported functions, so its
 * .dynsym, .dynstr and .gnu.hash span many pages.  stack_workload calls
 * lazy_late_target through a lazily bound PLT slot after evicting this
 * file's pages: the dynamic linker's symbol lookup then takes a major
 * fault reading them.
 */
#define F1(n) int lazy_fn_##n(int x); int lazy_fn_##n(int x) { return x + 1; }
#define F8(n) F1(n##0) F1(n##1) F1(n##2) F1(n##3) F1(n##4) F1(n##5) F1(n##6) F1(n##7)
#define F64(n) F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6) F8(n##7)
#define F512(n) F64(n##0) F64(n##1) F64(n##2) F64(n##3) F64(n##4) F64(n##5) \
		F64(n##6) F64(n##7)

F512(0) F512(1) F512(2) F512(3) F512(4) F512(5) F512(6) F512(7)

int lazy_late_target(int x);
int lazy_late_target(int x)
{
	return x * 3;
}
