// main.cpp - parses an embedded inventory document with nlohmann::json,
// totals it, and prints a compact summary.  nlohmann/json is header-only and
// template heavy, so the binary carries deep inline chains through library
// headers that live outside the source tree (/usr/include/nlohmann).
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

const char *const kInventory = R"({
  "warehouse": "north",
  "items": [
    {"sku": "A-100", "qty": 12, "price": 2.5,  "tags": ["bolt", "steel"]},
    {"sku": "B-220", "qty": 3,  "price": 19.0, "tags": ["bracket"]},
    {"sku": "C-310", "qty": 40, "price": 0.2,  "tags": []},
    {"sku": "D-404", "qty": 0,  "price": 7.75, "tags": ["discontinued", "sale"]}
  ]
})";

struct Item {
	std::string sku;
	long qty;
	double price;
	std::vector<std::string> tags;
};

// from_json is found by argument-dependent lookup from json::get<Item>().
void from_json(const json &j, Item &it)
{
	j.at("sku").get_to(it.sku);
	j.at("qty").get_to(it.qty);
	j.at("price").get_to(it.price);
	j.at("tags").get_to(it.tags);
}

double total_value(const std::vector<Item> &items)
{
	double sum = 0;
	for (const auto &it : items)
		sum += static_cast<double>(it.qty) * it.price;
	return sum;
}

} // namespace

int main(int argc, char **argv)
{
	json doc = json::parse(argc > 1 ? argv[1] : kInventory);
	auto items = doc.at("items").get<std::vector<Item>>();

	json out;
	out["warehouse"] = doc.value("warehouse", "unknown");
	out["count"] = items.size();
	out["value"] = total_value(items);
	for (const auto &it : items)
		if (it.qty == 0)
			out["empty"].push_back(it.sku);
	std::printf("%s\n", out.dump().c_str());
	return 0;
}
