module example.com/goprog

go 1.26
