import sys

from onnxc.cli import main

sys.exit(main())
