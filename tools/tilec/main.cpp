#include "tilec/Cli.h"

int main(int argc, char **argv) { return tilec::cli::run(argc, argv); }
