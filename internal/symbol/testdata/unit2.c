/* A second compilation unit for the line-table tests (linked with prog.c's functions under
 * other names by -Dmain=unit2_main). */
static volatile int sink2;

__attribute__((noinline)) int twice(int x)
{
	int r = 0;
	for (int i = 0; i < x; i++)
		r += 2;
	return r;
}

__attribute__((noinline)) int thrice(int x)
{
	sink2 = x;
	return twice(x) + x;
}
