// C++ symbols for the demangling test.
#include <vector>
#include <string>
namespace ns {
template <typename T> struct Box {
	__attribute__((noinline)) T get(int i) const { return v[i % v.size()]; }
	std::vector<T> v;
};
__attribute__((noinline)) long sum(const std::vector<long> &v, std::string tag) { return v.size() + tag.size(); }
}
int main(int argc, char **)
{
	ns::Box<long> b{{1, 2, 3}};
	ns::Box<std::string> s{{"a"}};
	return (int)(b.get(argc) + ns::sum({1, 2}, s.get(0)));
}
