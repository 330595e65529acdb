// SPDX-License-Identifier: MIT
// bench/real.sh's C++ program: what a small real C++ tool does (regex
// tokenising, a std::map of std::string, a sort, iostreams), so the
// profile has the standard library's long template names in it.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

static std::string make_text(unsigned seed, int words)
{
	static const char *const w[] = { "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta",
					 "theta", "iota", "kappa", "lambda", "mu" };
	std::ostringstream os;

	for (int i = 0; i < words; i++) {
		seed = seed * 1103515245 + 12345;
		os << w[(seed >> 16) % 12] << ((seed >> 8) % 7) << (i % 13 ? ' ' : '\n');
	}
	return os.str();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	std::regex word("[a-z]+[0-9]");
	std::map<std::string, long> freq;

	for (int r = 0; r < rounds; r++) {
		std::string text = make_text(r, 20000);
		for (auto it = std::sregex_iterator(text.begin(), text.end(), word);
		     it != std::sregex_iterator(); ++it)
			freq[it->str()]++;
	}
	std::vector<std::pair<std::string, long>> v(freq.begin(), freq.end());
	std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
	for (size_t i = 0; i < v.size() && i < 5; i++)
		std::cout << v[i].first << ' ' << v[i].second << '\n';
	return 0;
}
