module example.com/symfixture

go 1.26
