package registry_test

import (
	"fmt"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/registry"
)

// Tool search without a model: an index over tools' names and
// descriptions, ranked by the words of a query and by word vectors.
func ExampleIndex_Search() {
	tools, err := registry.ParseToolList([]byte(`[
		{"name": "WeatherTool", "description": "Provide you with the latest weather information."},
		{"name": "NewsTool", "description": "Stay connected to global events with our up-to-date news around the world."},
		{"name": "FinanceTool", "description": "Stay informed with the latest financial updates on stocks, cryptocurrencies, and more."}
	]`))
	if err != nil {
		panic(err)
	}
	index := registry.NewIndex(tools, assets.Vectors())
	for _, q := range []string{"Will there be any news about the weather in Oslo tomorrow?", "What is Bitcoin trading at?"} {
		var names []string
		for _, hit := range index.Search(q, 5) {
			names = append(names, hit.Name)
		}
		fmt.Println(q, names)
	}
	// The second query shares no word with FinanceTool: its word vector
	// finds it; the first finds it third, as news.

	// Output:
	// Will there be any news about the weather in Oslo tomorrow? [WeatherTool NewsTool FinanceTool]
	// What is Bitcoin trading at? [FinanceTool]
}
