module example.com/gopcln

go 1.12
